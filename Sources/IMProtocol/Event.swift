/// The kind of an event in a user's feed. Unknown kinds from a newer server decode as
/// `.other` so older clients keep working.
public enum EventType: Hashable, Sendable, Codable, CustomStringConvertible {
    case message
    case messageEdited
    case messageDeleted
    case memberJoined
    case memberLeft
    case memberKicked
    case memberMuted
    case memberUnmuted
    case memberBanned
    case memberUnbanned
    case roleChanged
    case memberInvited
    case inviteRevoked
    case joinRequested
    case joinRequestRevoked
    case conversationUpdated
    case profileUpdated
    case contactAdded
    case read
    case kickedOut
    /// A reply only its recipient sees (`Notice`).
    case notice
    case other(String)

    public static let known: [EventType] = [
        .message, .messageEdited, .messageDeleted, .memberJoined, .memberLeft, .memberKicked, .memberMuted,
        .memberUnmuted, .memberBanned, .memberUnbanned, .roleChanged, .memberInvited, .inviteRevoked, .joinRequested,
        .joinRequestRevoked, .conversationUpdated, .profileUpdated, .contactAdded, .read, .kickedOut, .notice,
    ]

    public init(rawValue: String) {
        switch rawValue {
        case "message": self = .message
        case "message_edited": self = .messageEdited
        case "message_deleted": self = .messageDeleted
        case "member_joined": self = .memberJoined
        case "member_left": self = .memberLeft
        case "member_kicked": self = .memberKicked
        case "member_muted": self = .memberMuted
        case "member_unmuted": self = .memberUnmuted
        case "member_banned": self = .memberBanned
        case "member_unbanned": self = .memberUnbanned
        case "role_changed": self = .roleChanged
        case "member_invited": self = .memberInvited
        case "invite_revoked": self = .inviteRevoked
        case "join_requested": self = .joinRequested
        case "join_request_revoked": self = .joinRequestRevoked
        case "conversation_updated": self = .conversationUpdated
        case "profile_updated": self = .profileUpdated
        case "contact_added": self = .contactAdded
        case "read": self = .read
        case "kicked_out": self = .kickedOut
        case "notice": self = .notice
        default: self = .other(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .message: "message"
        case .messageEdited: "message_edited"
        case .messageDeleted: "message_deleted"
        case .memberJoined: "member_joined"
        case .memberLeft: "member_left"
        case .memberKicked: "member_kicked"
        case .memberMuted: "member_muted"
        case .memberUnmuted: "member_unmuted"
        case .memberBanned: "member_banned"
        case .memberUnbanned: "member_unbanned"
        case .roleChanged: "role_changed"
        case .memberInvited: "member_invited"
        case .inviteRevoked: "invite_revoked"
        case .joinRequested: "join_requested"
        case .joinRequestRevoked: "join_request_revoked"
        case .conversationUpdated: "conversation_updated"
        case .profileUpdated: "profile_updated"
        case .contactAdded: "contact_added"
        case .read: "read"
        case .kickedOut: "kicked_out"
        case .notice: "notice"
        case .other(let name): name
        }
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// One entry of a user's event feed.
///
/// Which optional fields are set depends on `type`: `message` carries `conversation` and
/// `message`; `message_edited` and `message_deleted` carry `conversation` and `message`
/// (as it is now: the new text, or no text), and `message_deleted` also `by` (who
/// deleted it); member events (`member_*`, `role_changed`, invitations and join
/// requests) carry `conversation`, `user` (the member, or the account invited, asking or
/// banned), `message` (the system notice written into the conversation, for the acts
/// that leave one) and `by` (who did it), and where they apply `reason` (why, as the
/// moderator gave it), `until` (when a mute or ban ends; absent: until lifted), `role`
/// (`role_changed`: the new role) and `via` (`member_joined`: how they came in);
/// `conversation_updated` carries `conversation`, `info`, `by` and `message`;
/// `profile_updated` carries `user`; `contact_added` carries `user` (the other side) and
/// `by` (who added whom); `read` carries `conversation` and `seq`; `notice` carries
/// `conversation` and `notice` (a reply only this user, its recipient, is given).
///
/// `kicked_out` (with `reason`) is not a feed entry: it answers the parked poll of a login
/// that was ended because the account logged in elsewhere with the same device name. It
/// repeats the poll's cursor position, must not be dropped as a repeat, and ends the
/// client's stream.
public struct Event: Codable, Sendable, Hashable {
    /// The feed position: strictly increasing in one user's feed. Clients drop an event
    /// whose position they have already handled.
    public var position: Int64
    public var type: EventType
    public var at: Timestamp
    public var conversation: ConversationRef?
    public var message: Message?
    public var user: User?
    public var by: String?
    public var info: ConversationInfo?
    public var seq: Int64?
    public var reason: String?
    /// When a mute or ban ends (`member_muted`, `member_banned`); nil: until lifted.
    public var until: Timestamp?
    /// The member's new role (`role_changed`).
    public var role: MemberRole?
    /// How a member came in (`member_joined`): an open group, an invitation or an approved
    /// request; nil for a group's creator and for rooms.
    public var via: JoinPolicy?
    /// The notice (`notice`): in the feed of its recipient only.
    public var notice: Notice?

    public init(
        position: Int64, type: EventType, at: Timestamp, conversation: ConversationRef? = nil,
        message: Message? = nil, user: User? = nil, by: String? = nil,
        info: ConversationInfo? = nil, seq: Int64? = nil, reason: String? = nil,
        until: Timestamp? = nil, role: MemberRole? = nil, via: JoinPolicy? = nil, notice: Notice? = nil
    ) {
        self.position = position
        self.type = type
        self.at = at
        self.conversation = conversation
        self.message = message
        self.user = user
        self.by = by
        self.info = info
        self.seq = seq
        self.reason = reason
        self.until = until
        self.role = role
        self.via = via
        self.notice = notice
    }
}

/// The answer to `GET /v1/events`.
public struct EventBatch: Codable, Sendable, Hashable {
    public var events: [Event]
    /// Poll with this next; it acknowledges every event in this batch.
    public var cursor: String

    public init(events: [Event], cursor: String) {
        self.events = events
        self.cursor = cursor
    }
}
