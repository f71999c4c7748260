import Foundation
import IMProtocol

/// A bot account's lease and journal on the server, for bot runners that share their
/// bots (only a bot's own login may call these).
extension IMClient {
    /// Takes the bot's lease for `holder` (a runner's id) for `ttl`; `CONFLICT` with
    /// reason `lease_held` while another runner holds it.
    public func takeLease(holder: String, ttl: Duration) async throws(IMClientError) -> BotLease {
        try await call(APIRequest("POST", "/v1/me/lease").json(
            LeaseRequest(holder: holder, ttlMilliseconds: ttl.wholeMilliseconds)), as: BotLease.self)
    }

    /// Renews the holding `fence`; `CONFLICT` with reason `lease_lost` when another runner
    /// took the bot since (or it was released).
    public func renewLease(holder: String, fence: Int64, ttl: Duration) async throws(IMClientError) -> BotLease {
        try await call(APIRequest("POST", "/v1/me/lease").json(
            LeaseRequest(holder: holder, ttlMilliseconds: ttl.wholeMilliseconds, fence: fence)), as: BotLease.self)
    }

    /// Ends the holding `fence` at once, so another runner may take the bot.
    public func releaseLease(fence: Int64) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("DELETE", "/v1/me/lease", query: [("fence", String(fence))]))
    }

    /// One page of the bot's journal: the snapshot and the first records (no `after`), or
    /// the records after the page whose `nextAfter` is `after`.
    public func journal(after: Int64? = nil, limit: Int? = nil) async throws(IMClientError) -> StoredJournalBody {
        var query: [(name: String, value: String)] = []
        if let after { query.append(("after", String(after))) }
        if let limit { query.append(("limit", String(limit))) }
        return try await call(APIRequest("GET", "/v1/me/journal", query: query), as: StoredJournalBody.self)
    }

    /// Appends records under the holding `fence`.
    @discardableResult
    public func appendJournal(fence: Int64, records: [String]) async throws(IMClientError) -> JournalSizesBody {
        try await call(APIRequest("POST", "/v1/me/journal/records").json(
            JournalAppendRequest(fence: fence, records: records)), as: JournalSizesBody.self)
    }

    /// Replaces the snapshot and drops every record, under the holding `fence`.
    @discardableResult
    public func replaceJournalSnapshot(fence: Int64, snapshot: String) async throws(IMClientError) -> JournalSizesBody {
        try await call(APIRequest("PUT", "/v1/me/journal/snapshot").json(
            JournalSnapshotRequest(fence: fence, snapshot: snapshot)), as: JournalSizesBody.self)
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
