import IMClient
import MatrixClient
import TestSupport

/// Follows one client's `/sync` in a test and waits for what it expects to arrive.
actor SyncWatcher {
    /// What the client has seen so far.
    struct Seen: Sendable {
        /// Timeline events by room, oldest first.
        var timelines: [String: [MatrixEvent]] = [:]
        /// Rooms the client was invited to, with the preview of their state.
        var invites: [String: SyncResponse.InvitedRoom] = [:]
        /// Each event's place in the order the client received them, across rooms.
        var arrival: [String: Int] = [:]

        /// The `m.room.message` events of `room`.
        func messages(in room: String) -> [MatrixEvent] {
            (timelines[room] ?? []).filter { $0.type == "m.room.message" }
        }

        /// The timeline events of `room` of `type`.
        func events(in room: String, type: String) -> [MatrixEvent] {
            (timelines[room] ?? []).filter { $0.type == type }
        }
    }

    let client: MatrixClient
    private var since: String?
    private var filter: String?
    /// Every event a test looks at, and more per answer than a test sends at once (an
    /// answer over its limit would leave events out).
    static let everything = SyncFilter(
        timelineLimit: 1000,
        timelineTypes: ["m.room.message", "m.room.member", "m.room.redaction", "m.room.power_levels", "m.room.encryption",
                        "m.room.join_rules"])
    private(set) var seen = Seen()

    init(_ client: MatrixClient) {
        self.client = client
    }

    /// Syncs until `found` returns a value (asked before each `/sync` and after each
    /// answer); throws `HangError` after `hangGuard`, with the homeserver's log's tail. Each `/sync` parks up to 2 s on the
    /// homeserver, so nothing here sleeps.
    func until<T: Sendable>(_ what: String, hangGuard: Duration = .seconds(60),
                            _ found: @Sendable (Seen) -> T?) async throws -> T {
        let giveUp = ContinuousClock.now + hangGuard
        while true {
            if let value = found(seen) { return value }
            guard ContinuousClock.now < giveUp else {
                throw HangError(what: "\(client.session?.userID.rawValue ?? "?") seeing \(what)\n"
                                + SynapseExit.logTails())
            }
            if filter == nil { filter = try await client.createFilter(Self.everything) }
            let answer = try await client.sync(since: since, filter: filter, timeout: .seconds(2))
            since = answer.nextBatch
            for (room, joined) in answer.rooms.join {
                seen.timelines[room, default: []] += joined.timeline
                for event in joined.timeline {
                    if let id = event.eventID { seen.arrival[id] = seen.arrival[id] ?? seen.arrival.count }
                }
            }
            for (room, invited) in answer.rooms.invite { seen.invites[room] = invited }
        }
    }
}
