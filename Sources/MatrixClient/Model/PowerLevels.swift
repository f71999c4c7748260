/// A room's `m.room.power_levels` content: who may do what.
///
/// Every field the specification names is kept, so reading, changing one user's level
/// and writing the content back loses nothing a homeserver checks. Missing fields take
/// the specification's defaults.
public struct PowerLevels: Sendable, Hashable, Codable {
    public var ban: Int64?
    public var kick: Int64?
    public var redact: Int64?
    public var invite: Int64?
    public var eventsDefault: Int64?
    public var stateDefault: Int64?
    public var usersDefault: Int64?
    public var events: [String: Int64]?
    public var users: [String: Int64]?
    public var notifications: [String: Int64]?

    enum CodingKeys: String, CodingKey {
        case ban, kick, redact, invite, events, users, notifications
        case eventsDefault = "events_default"
        case stateDefault = "state_default"
        case usersDefault = "users_default"
    }

    public init() {}

    /// The level a message (`m.room.message`) needs.
    public var messageLevel: Int64 { events?["m.room.message"] ?? eventsDefault ?? 0 }
    /// The level kicking needs (default 50).
    public var kickLevel: Int64 { kick ?? 50 }
    /// The level banning needs (default 50).
    public var banLevel: Int64 { ban ?? 50 }
    /// The level redacting others' events needs (default 50).
    public var redactLevel: Int64 { redact ?? 50 }
    /// The level changing this event needs (default: `state_default`, 50).
    public var powerLevelsLevel: Int64 { events?["m.room.power_levels"] ?? stateDefault ?? 50 }
}

/// What decides a user's power in a room: its power levels and, from room version 12
/// on, its creators, who are above every level and never listed in `users`.
public struct RoomPower: Sendable, Hashable {
    /// The room version (`m.room.create`'s `room_version`, "1" when absent).
    public var roomVersion: String
    /// The room's creators: the create event's sender and its `additional_creators`.
    public var creators: Set<String>
    public var levels: PowerLevels

    public init(roomVersion: String, creators: Set<String>, levels: PowerLevels) {
        self.roomVersion = roomVersion
        self.creators = creators
        self.levels = levels
    }

    /// True for room versions where creators have infinite power (12 and later; the
    /// unstable `org.matrix.hydra.11` too).
    public var creatorsOutrankAll: Bool {
        if let number = Int(roomVersion) { return number >= 12 }
        return roomVersion.contains("hydra")
    }

    /// The user's level; `Int64.max` for a creator where creators outrank all.
    public func level(of user: String) -> Int64 {
        if creatorsOutrankAll, creators.contains(user) { return Int64.max }
        return levels.users?[user] ?? levels.usersDefault ?? 0
    }

    /// True when the user may send messages.
    public func maySendMessages(_ user: String) -> Bool { level(of: user) >= levels.messageLevel }

    /// The levels with `user` at `level` (nil: back to the default, by removing the entry).
    /// Throws for a creator of a room where creators outrank all: they may not be listed.
    public func setting(_ user: String, to level: Int64?) throws(MatrixCreatorUnlisted) -> PowerLevels {
        if creatorsOutrankAll, creators.contains(user) { throw MatrixCreatorUnlisted(user: user, roomVersion: roomVersion) }
        var changed = levels
        var users = changed.users ?? [:]
        users[user] = level
        changed.users = users
        return changed
    }
}

/// A creator of a room version 12 (or later) room given a power level: the specification
/// forbids listing them.
public struct MatrixCreatorUnlisted: Error, Sendable, CustomStringConvertible {
    public var user: String
    public var roomVersion: String
    public var description: String {
        "\(user) created this room (version \(roomVersion)): a creator outranks every power level and may not be given one"
    }
}
