import IMProtocol

/// Reading messages and read markers (`MessageStore`). Appending a message, the hot path,
/// is each engine's own (`SQLiteStore+Messages.swift`, `PostgresStore+Messages.swift`).
extension StoreEngine {
    public func message(id: MessageID) async throws -> Message? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id WHERE m.id = ?1",
                id.rawValue, as: { try Self.message($0) }) ?? nil
        }
    }

    public func messages(_ conversationID: ConversationID, after: Int64, before: Int64?, limit: Int) async throws
        -> [Message]
    {
        try await read { connection in
            try connection.rows(
                """
                SELECT \(Self.messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id
                WHERE m.conversation_id = ?1 AND m.seq > ?2 AND m.seq < ?3 ORDER BY m.seq DESC LIMIT ?4
                """,
                conversationID.rawValue, after, before ?? Int64.max, limit, as: { try Self.message($0) }
            ).compactMap { $0 }
        }
    }

    public func markRead(_ conversationID: ConversationID, _ userID: UserID, seq: Int64) async throws -> Int64 {
        try await write(lockOrder: conversationID) { [self] context in
            let connection = context.connection
            // The marker moves forward only, and never past the last message.
            let changed = try connection.execute(
                """
                UPDATE members SET last_read_seq = (SELECT CASE WHEN ?1 < last_seq THEN ?1 ELSE last_seq END
                    FROM conversations WHERE id = ?2)
                WHERE conversation_id = ?2 AND user_id = ?3 AND last_read_seq < (SELECT
                    CASE WHEN ?1 < last_seq THEN ?1 ELSE last_seq END FROM conversations WHERE id = ?2)
                """,
                seq, conversationID.rawValue, userID.rawValue)
            guard let marker = try connection.first(
                "SELECT last_read_seq FROM members WHERE conversation_id = ?1 AND user_id = ?2",
                conversationID.rawValue, userID.rawValue, as: { try $0.int(0) })
            else { throw StoreError.notMember }
            if changed == 1 {
                try appendUserEvent(
                    context, type: .read, users: [userID], conversationID: conversationID,
                    payload: EventPayload(seq: marker), at: clock())
            }
            return marker
        }
    }
}
