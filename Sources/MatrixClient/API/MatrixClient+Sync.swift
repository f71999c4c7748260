import Foundation
import IMClient

/// The bot's feed: a filter made once, then `/sync` long-polls from the last `next_batch`.
extension MatrixClient {
    /// Uploads `filter` and returns its id, for ``sync(since:filter:timeout:)``.
    public func createFilter(_ filter: SyncFilter) async throws(IMClientError) -> String {
        let user = try currentUser()
        let request = try MatrixRequest("POST", MatrixPath.client + "/user/" + MatrixPath.segment(user.rawValue) + "/filter")
            .json(filter)
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: FilterAnswer.self).filterID
        }
    }

    /// What changed since `since` (nil: the rooms' current state and latest events);
    /// waits up to `timeout` for something to happen. Not retried here: the feed's
    /// owner decides when to poll again.
    public func sync(since: String?, filter: String?, timeout: Duration) async throws(IMClientError) -> SyncResponse {
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        var query: [(name: String, value: String)] = [("timeout", String(max(0, milliseconds)))]
        if let since { query.append(("since", since)) }
        if let filter { query.append(("filter", filter)) }
        var request = MatrixRequest("GET", MatrixPath.client + "/sync", query: query)
        request.timeout = timeout + configuration.requestTimeout
        return try await call(request, as: SyncResponse.self)
    }
}

/// A `/sync` filter: which events a bot wants, and how many per room at most.
public struct SyncFilter: Sendable, Encodable {
    /// The most timeline events per room in one answer; older ones make it `limited`.
    public var timelineLimit: Int
    /// The event types the timeline carries.
    public var timelineTypes: [String]

    /// Messages, edits and redactions, membership, power levels, encryption (to notice
    /// encrypted rooms), and room creation (for the creators of version 12 rooms).
    public static let bot = SyncFilter(
        timelineLimit: 50,
        timelineTypes: ["m.room.message", "m.room.member", "m.room.redaction", "m.room.power_levels",
                        "m.room.encryption", "m.room.encrypted", "m.room.create"])

    public init(timelineLimit: Int, timelineTypes: [String]) {
        self.timelineLimit = timelineLimit
        self.timelineTypes = timelineTypes
    }

    public func encode(to encoder: any Encoder) throws {
        let none = ["types": JSONValue.array([])]
        let filter: JSONValue = .object([
            "presence": .object(none),
            "account_data": .object(none),
            "room": .object([
                "timeline": .object([
                    "limit": .integer(Int64(timelineLimit)),
                    "types": .array(timelineTypes.map(JSONValue.string)),
                ]),
                "state": .object(["lazy_load_members": .bool(true)]),
                "ephemeral": .object(none),
                "account_data": .object(none),
            ]),
        ])
        try filter.encode(to: encoder)
    }
}

private struct FilterAnswer: Decodable {
    var filterID: String
    enum CodingKeys: String, CodingKey { case filterID = "filter_id" }
}
