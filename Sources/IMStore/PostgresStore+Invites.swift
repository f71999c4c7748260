import IMProtocol

/// Invitations to invite-only groups, and joining by a group's rules.
extension PostgresStore {
    public func invite(_ userID: UserID, to conversationID: ConversationID, by inviter: UserID) async throws -> Bool {
        try await write(lockOrder: conversationID) { [clock] context in
            let connection = context.connection
            _ = try Self.record(conversationID, connection, forUpdate: true)
            try Self.requireUser(userID, connection)
            if try Self.isMember(userID, of: conversationID, connection) {
                throw StoreError.conflict("'\(try Self.username(userID, connection) ?? "they")' is a member already")
            }
            return try connection.execute(
                """
                INSERT INTO invites (conversation_id, user_id, invited_by, created_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT DO NOTHING
                """,
                conversationID.rawValue, userID.rawValue, inviter.rawValue, clock().milliseconds) == 1
        }
    }

    public func isInvited(_ userID: UserID, to conversationID: ConversationID) async throws -> Bool {
        try await read { connection in
            try connection.first(
                "SELECT 1 FROM invites WHERE conversation_id = $1 AND user_id = $2", conversationID.rawValue,
                userID.rawValue, as: { _ in true }) != nil
        }
    }

    public func join(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange) async throws
        -> JoinOutcome
    {
        try await write(lockOrder: conversationID) { [clock] context in
            let connection = context.connection
            let conversation = try Self.record(conversationID, connection, forUpdate: true)
            if try Self.isMember(userID, of: conversationID, connection) { return .alreadyMember }
            if conversation.kind == .group, conversation.joinPolicy == .invite {
                let used = try connection.execute(
                    "DELETE FROM invites WHERE conversation_id = $1 AND user_id = $2", conversationID.rawValue,
                    userID.rawValue)
                guard used == 1 else { return .notInvited }
            }
            _ = try Self.addMember(context, conversationID, userID, role: .member, change: change, at: clock())
            return .joined
        }
    }

    static func isMember(_ userID: UserID, of conversationID: ConversationID, _ connection: PostgresConnection) throws
        -> Bool
    {
        try connection.first(
            "SELECT 1 FROM members WHERE conversation_id = $1 AND user_id = $2", conversationID.rawValue,
            userID.rawValue, as: { _ in true }) != nil
    }
}
