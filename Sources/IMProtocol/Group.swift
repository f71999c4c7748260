/// A member's standing in a group.
public enum MemberRole: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    case member
    case admin
    case owner

    private var rank: Int {
        switch self {
        case .member: 0
        case .admin: 1
        case .owner: 2
        }
    }

    public static func < (lhs: MemberRole, rhs: MemberRole) -> Bool { lhs.rank < rhs.rank }
}

/// Who may join a group (and, in `member_joined`'s `via`, how someone did).
public enum JoinPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Only people an admin invited (the default): the group is invisible to everyone
    /// else.
    case invite
    /// Anyone may join, and see its info.
    case open
    /// Anyone may ask to join and an admin approves; others see only its name and
    /// description.
    case approval

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let policy = JoinPolicy(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a join policy: use open, approval or invite")
        }
        self = policy
    }
}

/// A group or a room, as shown in lists and info pages.
public struct ConversationInfo: Codable, Sendable, Hashable {
    public var id: ConversationID
    public var kind: ConversationKind
    /// The unique name used in addresses (`group:<name>`).
    public var name: String
    /// The name shown to people; defaults to `name`.
    public var title: String
    public var logoURL: String
    public var description: String
    /// Group members, or people present in a room.
    public var memberCount: Int
    /// Who created it (owners of groups hold the `owner` role).
    public var createdBy: String?
    public var createdAt: Timestamp
    /// Who may join (groups only).
    public var join: JoinPolicy?
    /// Whether newcomers may post at once (groups only).
    public var newMembers: NewMemberPolicy?
    /// How long a member waits between posts (groups with slow mode only).
    public var slowMode: ConfigDuration?
    /// Who may change title, logo and description (groups only).
    public var infoEditableBy: InfoEditors?
    /// True when this is what an outsider sees of a group that takes requests (`approval`):
    /// only `name`, `description` and `join` are the group's; the rest is left blank.
    public var preview: Bool?

    public init(
        id: ConversationID, kind: ConversationKind, name: String, title: String,
        logoURL: String = "", description: String = "", memberCount: Int, createdBy: String?,
        createdAt: Timestamp, join: JoinPolicy? = nil, newMembers: NewMemberPolicy? = nil,
        slowMode: ConfigDuration? = nil, infoEditableBy: InfoEditors? = nil, preview: Bool? = nil
    ) {
        self.join = join
        self.newMembers = newMembers
        self.slowMode = slowMode
        self.infoEditableBy = infoEditableBy
        self.preview = preview
        self.id = id
        self.kind = kind
        self.name = name
        self.title = title
        self.logoURL = logoURL
        self.description = description
        self.memberCount = memberCount
        self.createdBy = createdBy
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, name, title, description, join, preview
        case logoURL = "logo_url"
        case memberCount = "member_count"
        case createdBy = "created_by"
        case createdAt = "created_at"
        case newMembers = "new_members"
        case slowMode = "slow_mode"
        case infoEditableBy = "info_editable_by"
    }

    /// `group:<name>` or `room:<name>`.
    public var address: ConversationAddress { ConversationAddress(kind: kind, name: name) }

    /// What an outsider may see of a group that takes requests: its name, description and
    /// policy.
    public var outsidersPreview: ConversationInfo {
        ConversationInfo(
            id: id, kind: kind, name: name, title: name, description: description, memberCount: 0, createdBy: nil,
            createdAt: Timestamp(milliseconds: 0), join: join, preview: true)
    }
}

/// `POST /v1/groups`, `POST /v1/rooms`.
public struct CreateConversationRequest: Codable, Sendable, Hashable {
    public var name: String
    public var title: String?
    public var description: String?
    public var logoURL: String?
    /// Who may join a group; `invite` when not given. Not for rooms (nor are the other
    /// settings).
    public var join: JoinPolicy?
    public var newMembers: NewMemberPolicy?
    public var slowMode: ConfigDuration?
    public var infoEditableBy: InfoEditors?

    public init(
        name: String, title: String? = nil, description: String? = nil, logoURL: String? = nil,
        join: JoinPolicy? = nil, newMembers: NewMemberPolicy? = nil, slowMode: ConfigDuration? = nil,
        infoEditableBy: InfoEditors? = nil
    ) {
        self.name = name
        self.title = title
        self.description = description
        self.logoURL = logoURL
        self.join = join
        self.newMembers = newMembers
        self.slowMode = slowMode
        self.infoEditableBy = infoEditableBy
    }

    enum CodingKeys: String, CodingKey {
        case name, title, description, join
        case logoURL = "logo_url"
        case newMembers = "new_members"
        case slowMode = "slow_mode"
        case infoEditableBy = "info_editable_by"
    }

    /// The group settings given.
    public var settings: GroupSettings {
        GroupSettings(join: join, newMembers: newMembers, slowMode: slowMode, infoEditableBy: infoEditableBy)
    }
}

/// `PATCH /v1/groups/<name>`, `PATCH /v1/rooms/<name>`: only the fields present change.
/// A group's settings (`join`, `new_members`, `slow_mode`, `info_editable_by`) are its
/// owner's and admins' to change; rooms have none.
public struct ConversationInfoUpdate: Codable, Sendable, Hashable {
    public var title: String?
    public var logoURL: String?
    public var description: String?
    public var join: JoinPolicy?
    public var newMembers: NewMemberPolicy?
    public var slowMode: ConfigDuration?
    public var infoEditableBy: InfoEditors?

    public init(
        title: String? = nil, logoURL: String? = nil, description: String? = nil, join: JoinPolicy? = nil,
        newMembers: NewMemberPolicy? = nil, slowMode: ConfigDuration? = nil, infoEditableBy: InfoEditors? = nil
    ) {
        self.title = title
        self.logoURL = logoURL
        self.description = description
        self.join = join
        self.newMembers = newMembers
        self.slowMode = slowMode
        self.infoEditableBy = infoEditableBy
    }

    enum CodingKeys: String, CodingKey {
        case title, description, join
        case logoURL = "logo_url"
        case newMembers = "new_members"
        case slowMode = "slow_mode"
        case infoEditableBy = "info_editable_by"
    }

    /// The group settings given.
    public var settings: GroupSettings {
        GroupSettings(join: join, newMembers: newMembers, slowMode: slowMode, infoEditableBy: infoEditableBy)
    }

    /// True when neither info nor settings are given.
    public var isEmpty: Bool { !changesInfo && settings.isEmpty }

    /// True when title, logo or description is given.
    public var changesInfo: Bool { title != nil || logoURL != nil || description != nil }

    public func validate() throws {
        if let title { try Validate.displayName(title, field: "title") }
        if let logoURL { try Validate.url(logoURL, field: "logo_url") }
        if let description {
            try Validate.text(
                description, field: "description", length: Limits.descriptionLength, multiline: true)
        }
    }
}

/// One member of a group (or one person present in a room).
public struct Member: Codable, Sendable, Hashable {
    public var user: User
    public var role: MemberRole
    public var joinedAt: Timestamp
    /// True while the member is muted.
    public var muted: Bool?
    /// When the mute ends; absent while muted until unmuted.
    public var mutedUntil: Timestamp?
    /// True while a newcomer waits for an admin to let them post (`new_members: restricted`).
    public var restricted: Bool?

    public init(
        user: User, role: MemberRole, joinedAt: Timestamp, muted: Bool? = nil, mutedUntil: Timestamp? = nil,
        restricted: Bool? = nil
    ) {
        self.user = user
        self.role = role
        self.joinedAt = joinedAt
        self.muted = muted
        self.mutedUntil = mutedUntil
        self.restricted = restricted
    }

    enum CodingKeys: String, CodingKey {
        case user, role, muted, restricted
        case joinedAt = "joined_at"
        case mutedUntil = "muted_until"
    }
}

/// `GET /v1/groups/<name>/members`.
public struct MemberList: Codable, Sendable, Hashable {
    public var members: [Member]
    public init(members: [Member]) { self.members = members }
}

/// `GET /v1/groups`, `GET /v1/rooms`: the ones the caller belongs to or is present in.
public struct ConversationInfoList: Codable, Sendable, Hashable {
    public var items: [ConversationInfo]
    public init(items: [ConversationInfo]) { self.items = items }
}
