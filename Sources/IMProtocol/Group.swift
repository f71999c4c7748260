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

/// Who may join a group.
public enum JoinPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Only people a member with the right invited (the default): the group is invisible
    /// to everyone else.
    case invite
    /// Anyone may join, and see its info.
    case open

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let policy = JoinPolicy(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a join policy: use open or invite")
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

    public init(
        id: ConversationID, kind: ConversationKind, name: String, title: String,
        logoURL: String = "", description: String = "", memberCount: Int, createdBy: String?,
        createdAt: Timestamp, join: JoinPolicy? = nil
    ) {
        self.join = join
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
        case id, kind, name, title, description, join
        case logoURL = "logo_url"
        case memberCount = "member_count"
        case createdBy = "created_by"
        case createdAt = "created_at"
    }

    /// `group:<name>` or `room:<name>`.
    public var address: ConversationAddress { ConversationAddress(kind: kind, name: name) }
}

/// `POST /v1/groups`, `POST /v1/rooms`.
public struct CreateConversationRequest: Codable, Sendable, Hashable {
    public var name: String
    public var title: String?
    public var description: String?
    public var logoURL: String?
    /// Who may join a group; `invite` when not given. Not for rooms.
    public var join: JoinPolicy?

    public init(
        name: String, title: String? = nil, description: String? = nil, logoURL: String? = nil,
        join: JoinPolicy? = nil
    ) {
        self.name = name
        self.title = title
        self.description = description
        self.logoURL = logoURL
        self.join = join
    }

    enum CodingKeys: String, CodingKey {
        case name, title, description, join
        case logoURL = "logo_url"
    }
}

/// `POST /v1/groups/<name>/invites`: lets one account join an invite-only group.
public struct GroupInviteRequest: Codable, Sendable, Hashable {
    public var user: String
    public init(user: String) { self.user = user }
}

/// An invitation to a group, as `POST /v1/groups/<name>/invites` answers it.
public struct GroupInvite: Codable, Sendable, Hashable {
    public var group: String
    public var user: String
    public var invitedBy: String
    public var createdAt: Timestamp

    public init(group: String, user: String, invitedBy: String, createdAt: Timestamp) {
        self.group = group
        self.user = user
        self.invitedBy = invitedBy
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case group, user
        case invitedBy = "invited_by"
        case createdAt = "created_at"
    }
}

/// `PATCH /v1/groups/<name>`, `PATCH /v1/rooms/<name>`: only the fields present change.
public struct ConversationInfoUpdate: Codable, Sendable, Hashable {
    public var title: String?
    public var logoURL: String?
    public var description: String?

    public init(title: String? = nil, logoURL: String? = nil, description: String? = nil) {
        self.title = title
        self.logoURL = logoURL
        self.description = description
    }

    enum CodingKeys: String, CodingKey {
        case title, description
        case logoURL = "logo_url"
    }

    public var isEmpty: Bool { title == nil && logoURL == nil && description == nil }

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

    public init(user: User, role: MemberRole, joinedAt: Timestamp) {
        self.user = user
        self.role = role
        self.joinedAt = joinedAt
    }

    enum CodingKeys: String, CodingKey {
        case user, role
        case joinedAt = "joined_at"
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
