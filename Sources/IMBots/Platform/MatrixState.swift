import MatrixClient

/// What a Matrix bot keeps in its journal beside what every bot keeps: the direct chats
/// it made (so a restart uses them again instead of making new ones), the slow mode of
/// its rooms (Matrix has none: the runner enforces it, and a restart keeps it), and the
/// layout of the batch being handled (``MatrixBatchLayout``).
struct MatrixState: Sendable, Equatable, Codable {
    /// The bot's direct chat with each user: user id → room id.
    var direct: [String: String] = [:]
    /// Each room's slow mode in seconds, by the file's name of its group; absent: off.
    var slowMode: [String: Int] = [:]
    /// The batch handed out last: which rooms' events it held, in its order.
    var batch: MatrixBatchLayout?

    var isEmpty: Bool { direct.isEmpty && slowMode.isEmpty && batch == nil }

    enum CodingKeys: String, CodingKey {
        case direct, batch
        case slowMode = "slow_mode"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        direct = try container.decodeIfPresent([String: String].self, forKey: .direct) ?? [:]
        slowMode = try container.decodeIfPresent([String: Int].self, forKey: .slowMode) ?? [:]
        batch = try container.decodeIfPresent(MatrixBatchLayout.self, forKey: .batch)
    }

    mutating func apply(_ change: MatrixChange) {
        if let user = change.user, let room = change.room { direct[user] = room }
        if let group = change.group {
            slowMode[group] = change.slowMode.flatMap { $0 > 0 ? $0 : nil }
        }
        if let batch = change.batch { self.batch = batch }
    }
}

/// One change of ``MatrixState``: a direct chat made (`user`, `room`), a room's slow
/// mode set (`group`, `slowMode`: seconds, 0 for off), or a batch's layout (`batch`).
struct MatrixChange: Sendable, Equatable, Codable {
    var user: String?
    var room: String?
    var group: String?
    var slowMode: Int?
    var batch: MatrixBatchLayout?

    enum CodingKeys: String, CodingKey {
        case user, room, group, batch
        case slowMode = "slow_mode"
    }

    static func direct(_ user: String, _ room: String) -> MatrixChange { MatrixChange(user: user, room: room) }
    static func slowMode(_ group: String, seconds: Int) -> MatrixChange { MatrixChange(group: group, slowMode: seconds) }
    static func batch(_ layout: MatrixBatchLayout) -> MatrixChange { MatrixChange(batch: layout) }
}

/// Where the events of a batch were, so that the same batch seen again after a crash
/// gives each event the position it had.
///
/// A batch is what one `/sync` from a token brings, room by room. Asked again from the
/// same token after a crash, the homeserver brings the same events of each room, in the
/// same order, and those that came since: a room sorted first may have more, which would
/// move the events of the rooms after it to other positions, so that one handled before
/// would be taken for new and one not handled for done. The layout, journaled before a
/// batch is handled, keeps them: the events it counts come first, room by room as then,
/// and the new ones after them.
struct MatrixBatchLayout: Sendable, Equatable, Codable {
    /// The token the batch was asked from.
    var since: String
    /// Each room of the batch with the number of its events, in the batch's order.
    var rooms: [Room]

    struct Room: Sendable, Equatable, Codable {
        var id: String
        var events: Int
    }

    /// The layout of `events` (room by room, each room's in order).
    init(since: String, events: [MatrixRoomEvent]) {
        self.since = since
        var rooms: [Room] = []
        for event in events {
            if rooms.last?.id == event.roomID { rooms[rooms.count - 1].events += 1 } else {
                rooms.append(Room(id: event.roomID, events: 1))
            }
        }
        self.rooms = rooms
    }

    /// `events`, the same batch seen again, in this layout's order: the events it counts
    /// first, room by room as it lists them, then the others in their order.
    func order(_ events: [MatrixRoomEvent]) -> [MatrixRoomEvent] {
        var byRoom: [String: [MatrixRoomEvent]] = [:]
        for event in events { byRoom[event.roomID, default: []].append(event) }
        var taken: [String: Int] = [:]
        var ordered: [MatrixRoomEvent] = []
        for room in rooms {
            let own = byRoom[room.id] ?? []
            let start = taken[room.id] ?? 0
            let end = min(own.count, start + room.events)
            if start < end { ordered += own[start..<end] }
            taken[room.id] = max(start, end)
        }
        var seen: [String: Int] = [:]
        for event in events {
            let index = seen[event.roomID, default: 0]
            seen[event.roomID] = index + 1
            if index >= taken[event.roomID, default: 0] { ordered.append(event) }
        }
        return ordered
    }
}
