/// One group of the directory (`GET /v1/directory/groups`): an `open` or `approval`
/// group anyone logged in may find, join or ask to join. Invite-only groups are never
/// listed.
public struct DirectoryGroup: Codable, Sendable, Hashable {
    /// The unique name (`group:<name>`).
    public var name: String
    /// The name shown; the unique name when none is set.
    public var title: String
    public var description: String
    /// `open` (joining lets one in) or `approval` (joining asks an admin).
    public var join: JoinPolicy
    /// How many members it has.
    public var members: Int
    /// The group's logo, when it has one.
    public var logoURL: String?

    public init(name: String, title: String, description: String, join: JoinPolicy, members: Int, logoURL: String? = nil) {
        self.name = name
        self.title = title
        self.description = description
        self.join = join
        self.members = members
        self.logoURL = logoURL
    }

    enum CodingKeys: String, CodingKey {
        case name, title, description, join, members
        case logoURL = "logo_url"
    }
}

/// One page of the group directory, in name order.
public struct DirectoryPage: Codable, Sendable, Hashable {
    public var groups: [DirectoryGroup]
    /// Pass as `after` for the next page; null on the last one.
    public var nextAfter: String?

    public init(groups: [DirectoryGroup], nextAfter: String?) {
        self.groups = groups
        self.nextAfter = nextAfter
    }

    enum CodingKeys: String, CodingKey {
        case groups
        case nextAfter = "next_after"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(groups, forKey: .groups)
        try container.encode(nextAfter, forKey: .nextAfter)  // null on the last page, never left out
    }
}
