/// `POST /v1/groups/<name>/invites`: lets one account join the group.
public struct GroupInviteRequest: Codable, Sendable, Hashable {
    public var user: String
    /// The account `user` must still be: a name can change hands (deleted and registered
    /// again), and an invitation meant for one account must never reach the next.
    public var userID: UserID?
    public init(user: String) { self.init(user: user, userID: nil) }

    public init(user: String, userID: UserID?) {
        self.user = user
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case user
        case userID = "user_id"
    }
}

/// An invitation to a group waiting to be accepted (by joining), declined or revoked.
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

/// `GET /v1/groups/<name>/invites`, `GET /v1/me/invites`: pending invitations, oldest first.
public struct GroupInviteList: Codable, Sendable, Hashable {
    public var invites: [GroupInvite]
    public init(invites: [GroupInvite]) { self.invites = invites }
}

/// Someone asking to join a group whose policy is `approval`.
public struct GroupJoinRequest: Codable, Sendable, Hashable {
    public var group: String
    public var user: String
    public var createdAt: Timestamp

    public init(group: String, user: String, createdAt: Timestamp) {
        self.group = group
        self.user = user
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case group, user
        case createdAt = "created_at"
    }
}

/// `GET /v1/groups/<name>/requests`, `GET /v1/me/requests`: pending join requests, oldest
/// first.
public struct GroupJoinRequestList: Codable, Sendable, Hashable {
    public var requests: [GroupJoinRequest]
    public init(requests: [GroupJoinRequest]) { self.requests = requests }
}
