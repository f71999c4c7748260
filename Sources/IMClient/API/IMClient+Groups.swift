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
        try await createGroup(CreateConversationRequest(
            name: name, title: title, description: description, logoURL: logoURL, join: join))
    }

    /// Creates a group as `request` says: its title, description and settings (who may
    /// join, newcomers, slow mode, who may change the info).
    @discardableResult
    public func createGroup(_ request: CreateConversationRequest) async throws(IMClientError) -> ConversationInfo {
        try await call(try APIRequest("POST", "/v1/groups").json(request), as: ConversationInfo.self)
    }

    /// Joins a group: an open one, or any the caller was invited to (`NOT_FOUND` for an
    /// invite-only one otherwise: such a group is invisible to others). For a group that
    /// takes requests it throws `awaitingApproval` once the request is recorded (use
    /// `join(group:)` to have that as a value). Joining twice is fine.
    @discardableResult
    public func joinGroup(_ name: String) async throws(IMClientError) -> ConversationInfo {
        switch try await join(group: name) {
        case .joined(let info):
            return info
        case .requested(let request):
            throw IMClientError(
                .awaitingApproval,
                "group '\(request.group)' takes requests: yours is recorded and waits for an admin's approval")
        }
    }

    /// Joins a group by its policy: `.joined` for an open group or with an invitation,
    /// `.requested` for a group that takes requests (asking again changes nothing).
    public func join(group name: String) async throws(IMClientError) -> GroupJoin {
        let request = APIRequest("POST", Self.path(.group, name, "join"))
        let response = try await perform(request)
        if response.status == 202 { return .requested(try decode(GroupJoinRequest.self, from: response, for: request)) }
        return .joined(try decode(ConversationInfo.self, from: response, for: request))
    }

    /// Acts on a member (or, for `ban` and `unban`, any account): mute, unmute, kick, ban,
    /// unban, promote, demote, or transfer ownership. Admins act on members, the owner on
    /// everyone, server administrators in any group; `FORBIDDEN` with reason
    /// `not_group_admin`, `not_group_owner` or `outranked` otherwise. `duration` (mute,
    /// ban) ends it by itself; `reason` goes into the notice.
    @discardableResult
    public func moderate(
        group name: String, _ action: ModerationAction, user username: String, duration: ConfigDuration? = nil,
        reason: String? = nil
    ) async throws(IMClientError) -> ModerationResult {
        let body = ModerationRequest(action: action, user: username, duration: duration, reason: reason)
        return try await call(
            try APIRequest("POST", Self.path(.group, name, "moderation")).json(body), as: ModerationResult.self)
    }

    /// Changes a group's settings (its owner and admins): who may join, whether newcomers
    /// post at once, slow mode, who edits the info. Only the ones given change.
    @discardableResult
    public func updateGroupSettings(_ name: String, _ settings: GroupSettings) async throws(IMClientError)
        -> ConversationInfo
    {
        let update = ConversationInfoUpdate(
            join: settings.join, newMembers: settings.newMembers, slowMode: settings.slowMode,
            infoEditableBy: settings.infoEditableBy)
        return try await updateGroup(name, update)
    }

    /// The bans in force in a group (its owner and admins, and server administrators).
    public func groupBans(_ name: String) async throws(IMClientError) -> [GroupBan] {
        try await call(APIRequest("GET", Self.path(.group, name, "bans")), as: GroupBanList.self).bans
    }

    /// Leaves a group; `FORBIDDEN` when not a member.
    public func leaveGroup(_ name: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("POST", Self.path(.group, name, "leave")))
    }

    /// A group's members with their roles and mutes (members, and server administrators).
    public func groupMembers(_ name: String) async throws(IMClientError) -> [Member] {
        try await call(APIRequest("GET", Self.path(.group, name, "members")), as: MemberList.self).members
    }

    /// A group's info page (for an outsider of a group that takes requests, a preview:
    /// name, description and policy only).
    public func groupInfo(_ name: String) async throws(IMClientError) -> ConversationInfo {
        try await call(APIRequest("GET", Self.path(.group, name)), as: ConversationInfo.self)
    }

    /// Changes a group's title, logo or description (its owner and admins; any member
    /// when the group's `info_editable_by` is `members`), or its settings.
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

    static func path(_ kind: ConversationKind, _ name: String, _ action: String? = nil) -> String {
        let base = kind == .group ? "/v1/groups/" : "/v1/rooms/"
        return base + APIPath.segment(name) + (action.map { "/" + $0 } ?? "")
    }
}
