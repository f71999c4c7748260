import IMProtocol

/// Requests to join groups whose policy is `approval`. A request is an event of the group
/// (its admins decide; every member's client may show it) and of the one asking, who is
/// not a member yet; approving adds them (`via: approval`).
extension StoreEngine {
    /// Records a request inside `join`'s write job; asking again changes nothing.
    func requestToJoin(
        _ context: WriteContext, _ conversationID: ConversationID, _ userID: UserID, at now: Timestamp
    ) throws {
        guard try context.connection.execute(
            """
            INSERT INTO join_requests (conversation_id, user_id, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING
            """,
            conversationID.rawValue, userID.rawValue, now.milliseconds) == 1
        else { return }
        try announce(
            context, conversationID, member: userID, change: MembershipChange(event: .joinRequested, notice: nil),
            at: now, tellingOutsider: true)
    }

    public func joinRequests(to conversationID: ConversationID) async throws -> [GroupJoinRequest] {
        try await read { connection in
            try connection.rows(
                "\(Self.requestQuery) WHERE r.conversation_id = ?1 ORDER BY r.created_at, u.username COLLATE \"C\"",
                conversationID.rawValue, as: { try Self.joinRequest($0) })
        }
    }

    public func joinRequests(for userID: UserID) async throws -> [GroupJoinRequest] {
        try await read { connection in
            try connection.rows(
                "\(Self.requestQuery) WHERE r.user_id = ?1 ORDER BY r.created_at, c.name COLLATE \"C\"", userID.rawValue,
                as: { try Self.joinRequest($0) })
        }
    }

    public func approveJoinRequest(
        of userID: UserID, to conversationID: ConversationID, by approver: ActingUser, notice: String
    ) async throws -> Bool {
        try await write(lockOrder: conversationID) { [self] context in
            let connection = context.connection
            let group = try Self.record(conversationID, connection, forUpdate: true)
            try GroupRules.require(
                .admin, actor: try standing(approver, in: group.id, connection), to: "approve requests")
            guard try connection.execute(
                "DELETE FROM join_requests WHERE conversation_id = ?1 AND user_id = ?2", group.id.rawValue,
                userID.rawValue) == 1
            else { return false }
            return try addMember(
                context, group.id, userID, role: .member, restricted: group.newMembers == .restricted,
                change: MembershipChange(event: .memberJoined, notice: notice, by: approver.id, via: .approval),
                at: clock())
        }
    }

    public func revokeJoinRequest(of userID: UserID, to conversationID: ConversationID, by actor: ActingUser)
        async throws -> Bool
    {
        try await write(lockOrder: conversationID) { [self] context in
            let connection = context.connection
            _ = try Self.record(conversationID, connection, forUpdate: true)
            // The one asking may withdraw; otherwise it is the admins' to deny.
            if actor.id != userID {
                try GroupRules.require(
                    .admin, actor: try standing(actor, in: conversationID, connection), to: "deny requests")
            }
            guard try connection.execute(
                "DELETE FROM join_requests WHERE conversation_id = ?1 AND user_id = ?2", conversationID.rawValue,
                userID.rawValue) == 1
            else { return false }
            try announce(
                context, conversationID, member: userID,
                change: MembershipChange(event: .joinRequestRevoked, notice: nil, by: actor.id), at: clock(),
                tellingOutsider: true)
            return true
        }
    }

    private static var requestQuery: String {
        """
        SELECT c.name, u.username, r.created_at
        FROM join_requests r JOIN conversations c ON c.id = r.conversation_id JOIN users u ON u.id = r.user_id
        """
    }

    private static func joinRequest(_ row: Connection.Row) throws -> GroupJoinRequest {
        GroupJoinRequest(
            group: try row.text(0), user: try row.text(1), createdAt: try row.time(2))
    }
}
