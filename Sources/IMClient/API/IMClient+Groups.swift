import IMProtocol

/// Groups (durable membership) and rooms (whoever is present), by unique name.
extension IMClient {
    // MARK: Groups

    /// Creates a group owned by the caller: invite-only unless `join` is `.open`;
    /// `CONFLICT` when the name exists (names are unique on a server).
    @discardableResult
    public func createGroup(
        name: String, title: String? = nil, description: String? = nil, logoURL: String? = nil,
        join: JoinPolicy? = nil
    ) async throws(IMClientError) -> ConversationInfo {
        let body = CreateConversationRequest(
            name: name, title: title, description: description, logoURL: logoURL, join: join)
        return try await call(try APIRequest("POST", "/v1/groups").json(body), as: ConversationInfo.self)
    }

    /// Joins a group: an open one, or an invite-only one the caller was invited to
    /// (`NOT_FOUND` otherwise: such a group is invisible to others). Joining twice is fine.
    @discardableResult
    public func joinGroup(_ name: String) async throws(IMClientError) -> ConversationInfo {
        try await call(APIRequest("POST", Self.path(.group, name, "join")), as: ConversationInfo.self)
    }

    /// Lets `username` join a group (its owner and admins, and server administrators,
    /// may); they accept by joining.
    @discardableResult
    public func inviteToGroup(_ name: String, user username: String) async throws(IMClientError) -> GroupInvite {
        let request = try APIRequest("POST", Self.path(.group, name, "invites")).json(GroupInviteRequest(user: username))
        return try await call(request, as: GroupInvite.self)
    }

    /// Leaves a group; `FORBIDDEN` when not a member.
    public func leaveGroup(_ name: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("POST", Self.path(.group, name, "leave")))
    }

    /// A group's members with their roles (members only).
    public func groupMembers(_ name: String) async throws(IMClientError) -> [Member] {
        try await call(APIRequest("GET", Self.path(.group, name, "members")), as: MemberList.self).members
    }

    /// A group's info page.
    public func groupInfo(_ name: String) async throws(IMClientError) -> ConversationInfo {
        try await call(APIRequest("GET", Self.path(.group, name)), as: ConversationInfo.self)
    }

    /// Changes a group's title, logo or description (any member may).
    @discardableResult
    public func updateGroup(_ name: String, _ update: ConversationInfoUpdate) async throws(IMClientError)
        -> ConversationInfo
    {
        try await call(try APIRequest("PATCH", Self.path(.group, name)).json(update), as: ConversationInfo.self)
    }

    /// The groups the caller belongs to.
    public func myGroups() async throws(IMClientError) -> [ConversationInfo] {
        try await call(APIRequest("GET", "/v1/groups"), as: ConversationInfoList.self).items
    }

    // MARK: Rooms

    /// Creates a room, or enters it when one of that name exists.
    @discardableResult
    public func createRoom(
        name: String, title: String? = nil, description: String? = nil, logoURL: String? = nil
    ) async throws(IMClientError) -> ConversationInfo {
        let body = CreateConversationRequest(name: name, title: title, description: description, logoURL: logoURL)
        return try await call(try APIRequest("POST", "/v1/rooms").json(body), as: ConversationInfo.self)
    }

    /// Enters a room: its messages reach the caller until they leave.
    @discardableResult
    public func enterRoom(_ name: String) async throws(IMClientError) -> ConversationInfo {
        try await call(APIRequest("POST", Self.path(.room, name, "enter")), as: ConversationInfo.self)
    }

    /// Leaves a room.
    public func leaveRoom(_ name: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("POST", Self.path(.room, name, "leave")))
    }

    /// The people present in a room (those present only).
    public func roomMembers(_ name: String) async throws(IMClientError) -> [Member] {
        try await call(APIRequest("GET", Self.path(.room, name, "members")), as: MemberList.self).members
    }

    /// A room's info page.
    public func roomInfo(_ name: String) async throws(IMClientError) -> ConversationInfo {
        try await call(APIRequest("GET", Self.path(.room, name)), as: ConversationInfo.self)
    }

    /// Changes a room's title, logo or description (anyone present may).
    @discardableResult
    public func updateRoom(_ name: String, _ update: ConversationInfoUpdate) async throws(IMClientError)
        -> ConversationInfo
    {
        try await call(try APIRequest("PATCH", Self.path(.room, name)).json(update), as: ConversationInfo.self)
    }

    /// The rooms the caller is present in.
    public func myRooms() async throws(IMClientError) -> [ConversationInfo] {
        try await call(APIRequest("GET", "/v1/rooms"), as: ConversationInfoList.self).items
    }

    private static func path(_ kind: ConversationKind, _ name: String, _ action: String? = nil) -> String {
        let base = kind == .group ? "/v1/groups/" : "/v1/rooms/"
        return base + APIPath.segment(name) + (action.map { "/" + $0 } ?? "")
    }
}
