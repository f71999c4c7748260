import IMProtocol

/// The rows of the group directory.
extension PostgresStore {
    public func listedGroups(after: String?, limit: Int) async throws -> [ConversationRecord] {
        try await read { connection in
            // Byte order, as SQLite's, so a page boundary means the same on both stores.
            try connection.rows(
                """
                SELECT \(Self.conversationColumns) FROM conversations c
                WHERE c.kind = 'group' AND c.name COLLATE "C" > $1 AND c.join_policy IN ('open', 'approval')
                ORDER BY c.name COLLATE "C" LIMIT $2
                """,
                after ?? "", max(0, limit), as: { try Self.conversationRecord($0) })
        }
    }
}
