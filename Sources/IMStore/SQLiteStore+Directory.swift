import IMProtocol

/// The rows of the group directory.
extension SQLiteStore {
    public func listedGroups(after: String?, limit: Int) async throws -> [ConversationRecord] {
        try await database.read { connection in
            // The (kind, name) index walks the groups in name order from `after` on.
            try connection.rows(
                """
                SELECT \(Self.conversationColumns) FROM conversations c
                WHERE c.kind = 'group' AND c.name > ? AND c.join_policy IN ('open', 'approval')
                ORDER BY c.name LIMIT ?
                """,
                after ?? "", max(0, limit), as: { Self.conversationRecord($0) })
        }
    }
}
