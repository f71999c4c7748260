import IMProtocol

/// The rows of the group directory.
extension StoreEngine {
    public func listedGroups(after: String?, limit: Int) async throws -> [ConversationRecord] {
        try await read { connection in
            // The (kind, name) index walks the groups in name order from `after` on, in
            // byte order on both engines, so a page boundary means the same on both.
            try connection.rows(
                """
                SELECT \(Self.conversationColumns) FROM conversations c
                WHERE c.kind = 'group' AND c.name COLLATE "C" > ?1 AND c.join_policy IN ('open', 'approval')
                ORDER BY c.name COLLATE "C" LIMIT ?2
                """,
                after ?? "", max(0, limit), as: { try Self.conversationRecord($0) })
        }
    }
}
