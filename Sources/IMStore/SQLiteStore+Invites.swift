import IMProtocol

/// Invitations to invite-only groups, and joining by a group's rules.
extension SQLiteStore {
    public func invite(_ userID: UserID, to conversationID: ConversationID, by inviter: UserID) async throws -> Bool {
        try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            try requireConversation(conversationID, connection)
            try requireUser(userID, connection)
            if try connection.scalar(
                "SELECT 1 FROM members WHERE conversation_id = ? AND user_id = ?", conversationID.rawValue, userID.rawValue)
                != nil
            {
                throw StoreError.conflict("'\(try username(userID, connection) ?? "they")' is a member already")
            }
            return try connection.execute(
                "INSERT INTO invites (conversation_id, user_id, invited_by, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                conversationID.rawValue, userID.rawValue, inviter.rawValue, now.milliseconds) == 1
        }
    }

    public func isInvited(_ userID: UserID, to conversationID: ConversationID) async throws -> Bool {
        try await database.read { connection in
            try connection.scalar(
                "SELECT 1 FROM invites WHERE conversation_id = ? AND user_id = ?", conversationID.rawValue, userID.rawValue)
                != nil
        }
    }

    public func join(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange) async throws
        -> JoinOutcome
    {
        try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            let conversation = try record(conversationID, connection)
            if try connection.scalar(
                "SELECT 1 FROM members WHERE conversation_id = ? AND user_id = ?", conversationID.rawValue, userID.rawValue)
                != nil
            {
                return .alreadyMember
            }
            if conversation.kind == .group, conversation.joinPolicy == .invite {
                let used = try connection.execute(
                    "DELETE FROM invites WHERE conversation_id = ? AND user_id = ?", conversationID.rawValue, userID.rawValue)
                guard used == 1 else { return .notInvited }
            }
            _ = try addMember(context, conversationID, userID, role: .member, change: change, at: now)
            return .joined
        }
    }
}
