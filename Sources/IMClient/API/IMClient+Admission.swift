import IMProtocol

/// What joining a group did.
public enum GroupJoin: Sendable, Hashable {
    /// The caller is a member.
    case joined(ConversationInfo)
    /// The group takes requests: the caller's waits for an admin.
    case requested(GroupJoinRequest)
}

/// Invitations and join requests: the group's owner and admins invite, list, withdraw,
/// approve and deny; an account lists its own, declines an invitation or withdraws a
/// request.
extension IMClient {
    /// Invites `username` to a group (its owner and admins, and server administrators,
    /// may); they accept by joining, and are told with `member_invited`. With `id`, only
    /// while the name is still that account's (`NOT_FOUND` once it changed hands).
    @discardableResult
    public func inviteToGroup(_ name: String, user username: String, id: UserID? = nil) async throws(IMClientError)
        -> GroupInvite
    {
        let request = try APIRequest("POST", Self.path(.group, name, "invites"))
            .json(GroupInviteRequest(user: username, userID: id))
        return try await call(request, as: GroupInvite.self)
    }

    /// A group's pending invitations (its owner and admins).
    public func groupInvites(_ name: String) async throws(IMClientError) -> [GroupInvite] {
        try await call(APIRequest("GET", Self.path(.group, name, "invites")), as: GroupInviteList.self).invites
    }

    /// Withdraws an invitation (the group's owner and admins), or declines one (pass your
    /// own username).
    public func revokeInvite(_ name: String, user username: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("DELETE", Self.path(.group, name, "invites/" + APIPath.segment(username))))
    }

    /// A group's pending join requests (its owner and admins).
    public func groupJoinRequests(_ name: String) async throws(IMClientError) -> [GroupJoinRequest] {
        try await call(APIRequest("GET", Self.path(.group, name, "requests")), as: GroupJoinRequestList.self).requests
    }

    /// Lets someone who asked into a group (its owner and admins); returns the new member.
    @discardableResult
    public func approveJoinRequest(_ name: String, user username: String) async throws(IMClientError) -> Member {
        try await call(
            APIRequest("POST", Self.path(.group, name, "requests/" + APIPath.segment(username) + "/approve")), as: Member.self)
    }

    /// Denies a request (the group's owner and admins), or withdraws your own (pass your
    /// own username).
    public func revokeJoinRequest(_ name: String, user username: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("DELETE", Self.path(.group, name, "requests/" + APIPath.segment(username))))
    }

    /// The caller's pending invitations: what `member_invited` events said, for a client
    /// that starts from the present.
    public func myInvites() async throws(IMClientError) -> [GroupInvite] {
        try await call(APIRequest("GET", "/v1/me/invites"), as: GroupInviteList.self).invites
    }

    /// The caller's pending join requests.
    public func myJoinRequests() async throws(IMClientError) -> [GroupJoinRequest] {
        try await call(APIRequest("GET", "/v1/me/requests"), as: GroupJoinRequestList.self).requests
    }
}
