import IMProtocol

/// Requests to join groups whose policy is `approval`. A request is an event of the
/// group (its admins decide; every member's client may show it) and of the one asking,
/// who is not a member yet; approving adds them (`via: approval`).
extension SQLiteStore {
    /// Records a request inside `join`'s write job; asking again changes nothing.
    func requestToJoin(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, _ userID: UserID, at now: Timestamp
    ) throws {
        guard try context.connection.execute(
            "INSERT INTO join_requests (conversation_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            conversationID.rawValue, userID.rawValue, now.milliseconds) == 1
        else { return }
        try announce(
            context, conversationID, member: userID, change: MembershipChange(event: .joinRequested, notice: nil),
            at: now, tellingOutsider: true)
    }

    public func joinRequests(to conversationID: ConversationID) async throws -> [GroupJoinRequest] {
        try await database.read { connection in
            try connection.rows(
                "\(Self.requestQuery) WHERE r.conversation_id = ? ORDER BY r.created_at, u.username",
                conversationID.rawValue, as: { Self.joinRequest($0) })
        }
    }

    public func joinRequests(for userID: UserID) async throws -> [GroupJoinRequest] {
        try await database.read { connection in
            try connection.rows(
                "\(Self.requestQuery) WHERE r.user_id = ? ORDER BY r.created_at, c.name", userID.rawValue,
                as: { Self.joinRequest($0) })
        }
    }

    public func approveJoinRequest(
        of userID: UserID, to conversationID: ConversationID, by approver: ActingUser, notice: String
    ) async throws -> Bool {
        try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            let group = try record(conversationID, connection)
            try GroupRules.require(.admin, actor: try standing(approver, in: group.id, connection), to: "approve requests")
            guard try connection.execute(
                "DELETE FROM join_requests WHERE conversation_id = ? AND user_id = ?", group.id.rawValue, userID.rawValue)
                == 1
            else { return false }
            return try addMember(
                context, group.id, userID, role: .member, restricted: group.newMembers == .restricted,
                change: MembershipChange(event: .memberJoined, notice: notice, by: approver.id, via: .approval), at: now)
        }
    }

    public func revokeJoinRequest(of userID: UserID, to conversationID: ConversationID, by actor: ActingUser)
        async throws -> Bool
    {
        try await database.write { [self] context in
            let connection = context.connection
            // The one asking may withdraw; otherwise it is the admins' to deny.
            if actor.id != userID {
                try GroupRules.require(
                    .admin, actor: try standing(actor, in: conversationID, connection), to: "deny requests")
            }
            guard try connection.execute(
                "DELETE FROM join_requests WHERE conversation_id = ? AND user_id = ?", conversationID.rawValue,
                userID.rawValue) == 1
            else { return false }
            try announce(
                context, conversationID, member: userID,
                change: MembershipChange(event: .joinRequestRevoked, notice: nil, by: actor.id), at: clock(),
                tellingOutsider: true)
            return true
        }
    }

    private static let requestQuery = """
        SELECT c.name, u.username, r.created_at
        FROM join_requests r JOIN conversations c ON c.id = r.conversation_id JOIN users u ON u.id = r.user_id
        """

    private static func joinRequest(_ row: SQLiteRow) -> GroupJoinRequest {
        GroupJoinRequest(group: row.text(0), user: row.text(1), createdAt: Timestamp(milliseconds: row.int(2)))
    }
}
