import Foundation
import HTTPServer
import IMProtocol
import IMStore

/// A bot account's lease and journal, which bot runners keep here so that any runner can
/// take a bot over (docs/architecture.md, "Several runners"). Only the bot's own login
/// may use them: a person's account gets 403 `not_a_bot`, and no account sees another's.
enum BotJournalRoutes {
    static let routes: [Route] = [
        Route(.post, "/v1/me/lease", access: .user, handler: lease),
        Route(.delete, "/v1/me/lease", access: .user, handler: release),
        Route(.get, "/v1/me/journal", access: .user, handler: journal),
        Route(.post, "/v1/me/journal/records", access: .user, bodyLimit: Limits.journalRequestBytes,
              handler: append),
        Route(.put, "/v1/me/journal/snapshot", access: .user, bodyLimit: Limits.journalRequestBytes,
              handler: replaceSnapshot),
    ]

    /// Takes the lease (no `fence`) or renews the holding `fence` names: 200 with the
    /// lease, 409 `lease_held` (taking; the message says for how long) or `lease_lost`
    /// (renewing a holding that is over).
    static func lease(_ context: RequestContext) async throws -> Response {
        let bot = try botCaller(context)
        let body = try context.decode(LeaseRequest.self)
        try validate(holder: body.holder)
        guard Limits.leaseMilliseconds.contains(body.ttlMilliseconds) else {
            throw APIError.invalid(
                "ttl_ms", "ttl_ms must be \(Limits.leaseMilliseconds.lowerBound) to "
                    + "\(Limits.leaseMilliseconds.upperBound) milliseconds")
        }
        let store = context.core.store
        let outcome: LeaseOutcome
        if let fence = body.fence {
            try validate(fence: fence)
            outcome = try await store.renewLease(bot.userID, holder: body.holder, fence: fence, ttl: body.ttlMilliseconds)
        } else {
            outcome = try await store.acquireLease(bot.userID, holder: body.holder, ttl: body.ttlMilliseconds)
        }
        switch outcome {
        case .granted(let lease):
            let answer = BotLease(
                holder: body.holder, fence: lease.fence, expiresAt: Timestamp(milliseconds: lease.expiresAt),
                ttlMilliseconds: body.ttlMilliseconds)
            return try .json(answer, encoder: context.core.encoder)
        case .held(let lease):
            let left = max(0, lease.expiresAt - context.core.now().milliseconds)
            throw APIError(
                .conflict, "another runner (\(lease.holder ?? "?")) holds this bot for \(left) ms more unless it "
                    + "renews: try again later", retryAfter: Int((left + 999) / 1000),
                reason: "lease_held", until: Timestamp(milliseconds: lease.expiresAt))
        case .lost:
            throw ErrorMapping.apiError(for: StoreError.leaseLost).0
        }
    }

    /// Ends the holding `?fence=` names at once; 204 either way (a holding that is over
    /// needs no ending).
    static func release(_ context: RequestContext) async throws -> Response {
        let bot = try botCaller(context)
        guard let text = context.request.query("fence"), let fence = Int64(text) else {
            throw APIError.invalid("fence", "give the holding to release: ?fence=<the lease's fence>")
        }
        try validate(fence: fence)
        _ = try await context.core.store.releaseLease(bot.userID, fence: fence)
        return .noContent
    }

    /// One page of the journal as the runner left it: the snapshot and the first records
    /// (no `after`), or the records after `?after=`; at most `?limit=` records (1 to
    /// 10,000, default 10,000) and 4 MiB of them, with `next_after` while more follow.
    static func journal(_ context: RequestContext) async throws -> Response {
        let bot = try botCaller(context)
        let limit = try context.queryInt("limit", in: Limits.journalPageRecords, default: Limits.journalPageRecords.upperBound)
            ?? Limits.journalPageRecords.upperBound
        var after: Int64?
        if let text = context.request.query("after"), !text.isEmpty {
            guard let value = Int64(text), value >= 0 else {
                throw APIError.invalid("after", "after must be the next_after of the page before")
            }
            after = value
        }
        let stored = try await context.core.store.journal(of: bot.userID, after: after, limit: limit)
        let body = StoredJournalBody(
            snapshot: stored.snapshot, records: stored.records, recordBytes: stored.recordBytes,
            snapshotBytes: stored.snapshotBytes, recordCount: stored.recordCount, nextAfter: stored.nextAfter,
            compactedThrough: stored.compactedThrough)
        return try .json(body, encoder: context.core.encoder)
    }

    /// Appends records under a holding; 409 `lease_lost` writes nothing.
    static func append(_ context: RequestContext) async throws -> Response {
        let bot = try botCaller(context)
        let body = try context.decode(JournalAppendRequest.self)
        try validate(fence: body.fence)
        guard body.records.count <= Limits.journalRecordsPerAppend else {
            throw APIError.invalid("records", "at most \(Limits.journalRecordsPerAppend) records per append")
        }
        let stored = try await journalWrite {
            try await context.core.store.appendJournal(
                bot.userID, fence: body.fence, records: body.records, limit: context.core.configuration.journalBytesPerBot)
        }
        return try .json(sizes(stored), encoder: context.core.encoder)
    }

    /// Replaces the snapshot and drops every record, under a holding.
    static func replaceSnapshot(_ context: RequestContext) async throws -> Response {
        let bot = try botCaller(context)
        let body = try context.decode(JournalSnapshotRequest.self)
        try validate(fence: body.fence)
        let stored = try await journalWrite {
            try await context.core.store.replaceJournalSnapshot(
                bot.userID, fence: body.fence, snapshot: body.snapshot, limit: context.core.configuration.journalBytesPerBot)
        }
        return try .json(sizes(stored), encoder: context.core.encoder)
    }

    // MARK: Checks

    private static func botCaller(_ context: RequestContext) throws -> Session {
        let session = try context.caller
        guard session.isBot, !session.isLocalAdministrator else {
            throw APIError(
                .forbidden, "leases and journals belong to bot accounts: log in as the bot", reason: "not_a_bot")
        }
        return session
    }

    private static func validate(holder: String) throws {
        guard Limits.leaseHolderLength.contains(holder.utf8.count),
              holder.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        else {
            throw APIError.invalid(
                "holder", "holder must be \(Limits.leaseHolderLength.lowerBound) to "
                    + "\(Limits.leaseHolderLength.upperBound) printable ASCII characters (the runner's id)")
        }
    }

    private static func validate(fence: Int64) throws {
        guard fence > 0 else { throw APIError.invalid("fence", "fence must be the positive number a lease gave") }
    }

    /// A journal write, with the journal's byte limit said as such.
    private static func journalWrite(_ write: () async throws -> StoredJournal) async throws -> StoredJournal {
        do {
            return try await write()
        } catch StoreError.overBudget(let used, let limit) {
            throw APIError(
                .payloadTooLarge, "the bot's journal would pass its limit of \(limit) bytes (\(used) in use, each "
                    + "record counting \(Limits.journalRecordOverhead) bytes besides its text): replace the snapshot "
                    + "to compact it", reason: "journal_full")
        }
    }

    private static func sizes(_ stored: StoredJournal) -> JournalSizesBody {
        JournalSizesBody(recordBytes: stored.recordBytes, snapshotBytes: stored.snapshotBytes)
    }
}
