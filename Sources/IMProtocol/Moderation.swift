/// What `POST /v1/groups/<name>/moderation` does to a member.
public enum ModerationAction: String, Codable, Sendable, Hashable, CaseIterable {
    /// Keeps a member from posting, for `duration` or until unmuted.
    case mute
    /// Lets a muted member post again; also lifts a newcomer's restriction.
    case unmute
    /// Removes a member, who may come back if the group's policy lets them.
    case kick
    /// Removes a member (if they are one) and keeps them from joining, being invited and
    /// posting, for `duration` or until unbanned.
    case ban
    case unban
    /// Makes a member an admin (the owner's power).
    case promote
    /// Makes an admin a member again (the owner's power).
    case demote
    /// Makes a member the group's owner; the owner before becomes an admin.
    case transfer

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let action = ModerationAction(rawValue: text) else {
            let known = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a moderation action: use one of \(known)")
        }
        self = action
    }

    /// The lowest role that may take this action (server administrators may take any).
    public var requiredRole: MemberRole {
        switch self {
        case .mute, .unmute, .kick, .ban, .unban: .admin
        case .promote, .demote, .transfer: .owner
        }
    }

    /// Whether a `duration` means anything for it.
    public var takesDuration: Bool { self == .mute || self == .ban }
}

/// `POST /v1/groups/<name>/moderation`.
public struct ModerationRequest: Codable, Sendable, Hashable {
    public var action: ModerationAction
    /// The member (or, for `ban` and `unban`, any account) acted on.
    public var user: String
    /// How long a mute or ban lasts; until lifted when absent.
    public var duration: ConfigDuration?
    /// Why, for the notice and the event (at most 256 characters).
    public var reason: String?

    public init(action: ModerationAction, user: String, duration: ConfigDuration? = nil, reason: String? = nil) {
        self.action = action
        self.user = user
        self.duration = duration
        self.reason = reason
    }

    /// Checks the fields; returns the target's username.
    public func validate() throws -> String {
        let name = try Validate.name(user, field: "user", length: Limits.usernameLength)
        if let duration {
            guard action.takesDuration else {
                throw APIError.invalid("duration", "duration applies to mute and ban only")
            }
            guard duration.seconds >= 1 else {
                throw APIError.invalid("duration", "duration must be at least 1s (leave it out for: until lifted)")
            }
        }
        if let reason { try Validate.text(reason, field: "reason", length: Limits.reasonLength) }
        return name
    }
}

/// What a moderation request did.
public struct ModerationResult: Codable, Sendable, Hashable {
    public var group: String
    public var action: ModerationAction
    public var user: String
    /// False when there was nothing to do (unmuting someone not muted, promoting an admin):
    /// then nothing was written and nobody was told.
    public var changed: Bool
    /// The member's role afterwards (absent when they are not a member).
    public var role: MemberRole?
    /// When the mute or ban ends (absent: until lifted, or not muted or banned).
    public var until: Timestamp?

    public init(
        group: String, action: ModerationAction, user: String, changed: Bool, role: MemberRole? = nil,
        until: Timestamp? = nil
    ) {
        self.group = group
        self.action = action
        self.user = user
        self.changed = changed
        self.role = role
        self.until = until
    }
}

/// Someone kept out of a group.
public struct GroupBan: Codable, Sendable, Hashable {
    public var user: User
    /// Who banned them (absent when that account is gone).
    public var by: String?
    public var reason: String?
    /// When the ban ends; absent: until unbanned.
    public var until: Timestamp?
    public var createdAt: Timestamp

    public init(user: User, by: String?, reason: String?, until: Timestamp?, createdAt: Timestamp) {
        self.user = user
        self.by = by
        self.reason = reason
        self.until = until
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case user, by, reason, until
        case createdAt = "created_at"
    }
}

/// `GET /v1/groups/<name>/bans`: bans in force, oldest first.
public struct GroupBanList: Codable, Sendable, Hashable {
    public var bans: [GroupBan]
    public init(bans: [GroupBan]) { self.bans = bans }
}
