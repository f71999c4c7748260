/// What a Matrix bot keeps in its journal beside what every bot keeps: the direct chats
/// it made (so a restart uses them again instead of making new ones), and the slow mode
/// of its rooms (Matrix has none: the runner enforces it, and a restart keeps it).
struct MatrixState: Sendable, Equatable, Codable {
    /// The bot's direct chat with each user: user id → room id.
    var direct: [String: String] = [:]
    /// Each room's slow mode in seconds, by the file's name of its group; absent: off.
    var slowMode: [String: Int] = [:]

    var isEmpty: Bool { direct.isEmpty && slowMode.isEmpty }

    enum CodingKeys: String, CodingKey {
        case direct
        case slowMode = "slow_mode"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        direct = try container.decodeIfPresent([String: String].self, forKey: .direct) ?? [:]
        slowMode = try container.decodeIfPresent([String: Int].self, forKey: .slowMode) ?? [:]
    }

    mutating func apply(_ change: MatrixChange) {
        if let user = change.user, let room = change.room { direct[user] = room }
        if let group = change.group {
            slowMode[group] = change.slowMode.flatMap { $0 > 0 ? $0 : nil }
        }
    }
}

/// One change of ``MatrixState``: a direct chat made (`user`, `room`), or a room's slow
/// mode set (`group`, `slowMode`: seconds, 0 for off).
struct MatrixChange: Sendable, Equatable, Codable {
    var user: String?
    var room: String?
    var group: String?
    var slowMode: Int?

    enum CodingKeys: String, CodingKey {
        case user, room, group
        case slowMode = "slow_mode"
    }

    static func direct(_ user: String, _ room: String) -> MatrixChange { MatrixChange(user: user, room: room) }
    static func slowMode(_ group: String, seconds: Int) -> MatrixChange { MatrixChange(group: group, slowMode: seconds) }
}
