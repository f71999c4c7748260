import IMProtocol

/// An account as stored: the public profile plus what only the server sees.
public struct UserRecord: Sendable, Hashable {
    public var user: User
    /// Argon2id in PHC string format.
    public var passwordHash: String
    public var isAdmin: Bool
    /// Feed positions at or below this were dropped by retention.
    public var feedFloor: Int64
    /// Set while an administrator has suspended the account: it cannot log in.
    public var suspendedAt: Timestamp?
    /// Set once the account was deleted: only its id (and its messages) remain.
    public var deletedAt: Timestamp?

    public init(
        user: User, passwordHash: String, isAdmin: Bool, feedFloor: Int64 = 0, suspendedAt: Timestamp? = nil,
        deletedAt: Timestamp? = nil
    ) {
        self.user = user
        self.passwordHash = passwordHash
        self.isAdmin = isAdmin
        self.feedFloor = feedFloor
        self.suspendedAt = suspendedAt
        self.deletedAt = deletedAt
    }

    public var id: UserID { user.id }
}

/// A new account.
public struct NewUser: Sendable, Hashable {
    public var username: String
    public var passwordHash: String
    public var nickname: String
    public var isBot: Bool
    public var isAdmin: Bool

    public init(username: String, passwordHash: String, nickname: String, isBot: Bool = false, isAdmin: Bool = false) {
        self.username = username
        self.passwordHash = passwordHash
        self.nickname = nickname
        self.isBot = isBot
        self.isAdmin = isAdmin
    }
}

/// A login: a bearer token, stored only as its SHA-256.
public struct TokenRecord: Sendable, Hashable {
    public var id: Int64
    public var userID: UserID
    public var device: String?
    public var createdAt: Timestamp
    /// Nil for logins that do not expire (bot accounts).
    public var expiresAt: Timestamp?
    public var revokedAt: Timestamp?
    /// Why it was revoked: `logout`, `kicked_out`, `password_changed`, `ended` (by its
    /// owner from another login), `suspended`.
    public var revokedReason: String?
    /// When it was last used, as last recorded (the server records it now and then).
    public var lastUsedAt: Timestamp?

    public init(
        id: Int64, userID: UserID, device: String?, createdAt: Timestamp, expiresAt: Timestamp?,
        revokedAt: Timestamp? = nil, revokedReason: String? = nil, lastUsedAt: Timestamp? = nil
    ) {
        self.id = id
        self.userID = userID
        self.device = device
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.revokedReason = revokedReason
        self.lastUsedAt = lastUsedAt
    }
}

/// A conversation row.
public struct ConversationRecord: Sendable, Hashable {
    public var id: ConversationID
    public var kind: ConversationKind
    /// Unique per kind; for direct conversations `<low user id>:<high user id>`.
    public var name: String
    public var title: String
    public var logoURL: String
    public var description: String
    public var createdBy: UserID?
    public var createdAt: Timestamp
    public var lastSeq: Int64
    public var updatedAt: Timestamp
    public var memberCount: Int
    /// Who may join a group (rooms and direct conversations ignore it, and the settings
    /// below).
    public var joinPolicy: JoinPolicy
    /// Whether a group's newcomers may post at once.
    public var newMembers: NewMemberPolicy
    /// Seconds a group member waits between posts; 0: no slow mode.
    public var slowModeSeconds: Int
    /// Who may change a group's title, logo and description.
    public var infoEditableBy: InfoEditors

    public init(
        id: ConversationID, kind: ConversationKind, name: String, title: String, logoURL: String,
        description: String, createdBy: UserID?, createdAt: Timestamp, lastSeq: Int64,
        updatedAt: Timestamp, memberCount: Int, joinPolicy: JoinPolicy = .invite, newMembers: NewMemberPolicy = .full,
        slowModeSeconds: Int = 0, infoEditableBy: InfoEditors = .admins
    ) {
        self.joinPolicy = joinPolicy
        self.newMembers = newMembers
        self.slowModeSeconds = slowModeSeconds
        self.infoEditableBy = infoEditableBy
        self.id = id
        self.kind = kind
        self.name = name
        self.title = title
        self.logoURL = logoURL
        self.description = description
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.lastSeq = lastSeq
        self.updatedAt = updatedAt
        self.memberCount = memberCount
    }

    /// The two participants of a direct conversation.
    public var participants: (UserID, UserID)? {
        guard kind == .direct else { return nil }
        let parts = name.split(separator: ":")
        guard parts.count == 2, let low = Int64(parts[0]), let high = Int64(parts[1]) else { return nil }
        return (UserID(rawValue: low), UserID(rawValue: high))
    }

    /// The key naming the direct conversation between two users.
    public static func directName(_ a: UserID, _ b: UserID) -> String {
        "\(min(a.rawValue, b.rawValue)):\(max(a.rawValue, b.rawValue))"
    }
}

/// One user's membership (or room presence).
public struct MembershipRecord: Sendable, Hashable {
    public var conversationID: ConversationID
    public var userID: UserID
    public var role: MemberRole
    public var joinedAt: Timestamp
    public var lastReadSeq: Int64
    public var mutedUntil: Timestamp?
    /// The conversation's last `seq` when they joined: in a room they read what came after.
    public var joinedSeq: Int64

    public init(
        conversationID: ConversationID, userID: UserID, role: MemberRole, joinedAt: Timestamp,
        lastReadSeq: Int64, mutedUntil: Timestamp?, joinedSeq: Int64 = 0
    ) {
        self.joinedSeq = joinedSeq
        self.conversationID = conversationID
        self.userID = userID
        self.role = role
        self.joinedAt = joinedAt
        self.lastReadSeq = lastReadSeq
        self.mutedUntil = mutedUntil
    }
}

/// A message to store.
public struct NewMessage: Sendable, Hashable {
    public var conversationID: ConversationID
    public var senderID: UserID
    public var type: MessageType
    public var text: String
    public var clientMessageID: String?
    public var replyTo: MessageID?
    /// Checked in the same transaction as the append: the sender must be a member (and
    /// not muted), so a send cannot slip past a concurrent leave or mute.
    public var requireMembership: Bool
    /// The sender's daily quota, charged in the same transaction (nil: not counted).
    public var quota: MessageQuota?

    public init(
        conversationID: ConversationID, senderID: UserID, type: MessageType = .chat, text: String,
        clientMessageID: String? = nil, replyTo: MessageID? = nil, requireMembership: Bool = true,
        quota: MessageQuota? = nil
    ) {
        self.conversationID = conversationID
        self.senderID = senderID
        self.type = type
        self.text = text
        self.clientMessageID = clientMessageID
        self.replyTo = replyTo
        self.requireMembership = requireMembership
        self.quota = quota
    }
}

/// What a membership change does besides the change itself: the system notice written
/// into the conversation and carried by the event, and the event's details.
public struct MembershipChange: Sendable, Hashable {
    public var event: EventType
    /// The notice's text, e.g. "alice joined the group"; nil for an event without one.
    public var notice: String?
    /// Who made the change when it is not the member (kicks, mutes).
    public var by: UserID?
    /// Why, as the moderator gave it.
    public var reason: String?
    /// When a mute or ban ends.
    public var until: Timestamp?
    /// The member's new role (`role_changed`).
    public var role: MemberRole?
    /// How they came in (`member_joined`).
    public var via: JoinPolicy?

    public init(
        event: EventType, notice: String?, by: UserID? = nil, reason: String? = nil, until: Timestamp? = nil,
        role: MemberRole? = nil, via: JoinPolicy? = nil
    ) {
        self.event = event
        self.notice = notice
        self.by = by
        self.reason = reason
        self.until = until
        self.role = role
        self.via = via
    }
}

/// Stored bytes (avatars).
public struct MediaRecord: Sendable, Hashable {
    public var id: String
    public var ownerID: UserID
    public var contentType: String
    public var bytes: [UInt8]
    public var createdAt: Timestamp

    public init(id: String, ownerID: UserID, contentType: String, bytes: [UInt8], createdAt: Timestamp) {
        self.id = id
        self.ownerID = ownerID
        self.contentType = contentType
        self.bytes = bytes
        self.createdAt = createdAt
    }

    /// The path it is served at.
    public var path: String { "/v1/media/\(id)" }
}


/// What `join` did.
public enum JoinOutcome: Sendable, Hashable {
    case joined
    case alreadyMember
    /// The group is invite-only and the user holds no invitation.
    case notInvited
    /// The user is banned from the group (until then; nil: until unbanned).
    case banned(until: Timestamp?)
    /// The group takes requests (`approval`): the user's request waits for an admin.
    case requested
}

/// A sender's new text for one of their messages.
public struct MessageEdit: Sendable, Hashable {
    public var conversationID: ConversationID
    public var messageID: MessageID
    public var editor: UserID
    public var text: String
    /// The editor's daily quota, charged in the same transaction (nil: not counted).
    public var quota: MessageQuota?

    public init(
        conversationID: ConversationID, messageID: MessageID, editor: UserID, text: String, quota: MessageQuota? = nil
    ) {
        self.conversationID = conversationID
        self.messageID = messageID
        self.editor = editor
        self.text = text
        self.quota = quota
    }
}

/// A message to delete, by its sender or a group's admin.
public struct MessageDeletion: Sendable, Hashable {
    public var conversationID: ConversationID
    public var messageID: MessageID
    public var by: ActingUser
    /// The system notice written into the conversation when someone other than the sender
    /// deletes it ("alice deleted a message of bob"); none for a sender's own deletion.
    public var notice: String

    public init(conversationID: ConversationID, messageID: MessageID, by: ActingUser, notice: String) {
        self.conversationID = conversationID
        self.messageID = messageID
        self.by = by
        self.notice = notice
    }
}

extension UserRecord {
    /// The name a deleted account keeps: `deleted~<id>` ('~' is not allowed in names
    /// people register, so it never clashes and the old name is free again).
    public static func deletedName(_ userID: UserID) -> String { "deleted~\(userID.rawValue)" }
}
