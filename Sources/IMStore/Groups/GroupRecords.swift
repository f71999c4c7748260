import IMProtocol

/// Who is acting in a group: an account, and whether it administers the server (server
/// administrators may act in any group, as its owner would).
public struct ActingUser: Sendable, Hashable {
    public var id: UserID
    public var isServerAdministrator: Bool

    public init(id: UserID, isServerAdministrator: Bool = false) {
        self.id = id
        self.isServerAdministrator = isServerAdministrator
    }
}

/// One moderation act in a group (`GroupModerationStore.moderate`).
public struct ModerationAct: Sendable, Hashable {
    public var conversationID: ConversationID
    public var by: ActingUser
    public var action: ModerationAction
    public var target: UserID
    /// When a mute or ban ends; nil: until lifted.
    public var until: Timestamp?
    public var reason: String?
    /// The system notice the act leaves in the group ("alice muted bob for 10m").
    public var notice: String

    public init(
        conversationID: ConversationID, by: ActingUser, action: ModerationAction, target: UserID,
        until: Timestamp? = nil, reason: String? = nil, notice: String
    ) {
        self.conversationID = conversationID
        self.by = by
        self.action = action
        self.target = target
        self.until = until
        self.reason = reason
        self.notice = notice
    }
}

/// What a moderation act did.
public struct ModerationOutcome: Sendable, Hashable {
    /// False when there was nothing to do; then nothing was written.
    public var changed: Bool
    /// The target's role afterwards; nil when they are not a member.
    public var role: MemberRole?
    /// When the target's mute or ban ends, when it does.
    public var until: Timestamp?

    public init(changed: Bool, role: MemberRole?, until: Timestamp? = nil) {
        self.changed = changed
        self.role = role
        self.until = until
    }
}

/// A ban in force.
public struct BanRecord: Sendable, Hashable {
    public var conversationID: ConversationID
    public var user: User
    public var bannedBy: String?
    public var reason: String?
    /// Nil: until unbanned.
    public var until: Timestamp?
    public var createdAt: Timestamp

    public init(
        conversationID: ConversationID, user: User, bannedBy: String?, reason: String?, until: Timestamp?,
        createdAt: Timestamp
    ) {
        self.conversationID = conversationID
        self.user = user
        self.bannedBy = bannedBy
        self.reason = reason
        self.until = until
        self.createdAt = createdAt
    }
}
