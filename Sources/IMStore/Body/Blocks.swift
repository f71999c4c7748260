import IMProtocol

/// Blocks: whom a user takes no one-to-one messages from, and no events addressed to them
/// alone (`FeedVisibility.takesEventsSQL`). Nobody is told: the blocked only see their
/// sends refused (`StoreError.blocked`, checked with each send, in the send's own
/// transaction).
extension StoreEngine {
    public func block(_ userID: UserID, _ blockedID: UserID) async throws -> Bool {
        try await write { [clock] context in
            let connection = context.connection
            try Self.requireUser(blockedID, connection)
            return try connection.execute(
                "INSERT INTO blocks (user_id, blocked_id, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
                userID.rawValue, blockedID.rawValue, clock().milliseconds) == 1
        }
    }

    public func unblock(_ userID: UserID, _ blockedID: UserID) async throws -> Bool {
        try await write { context in
            try context.connection.execute(
                "DELETE FROM blocks WHERE user_id = ?1 AND blocked_id = ?2", userID.rawValue, blockedID.rawValue) == 1
        }
    }

    public func blocked(by userID: UserID) async throws -> [User] {
        try await read { connection in
            try connection.rows(
                """
                SELECT \(Self.userColumns) FROM blocks b JOIN users u ON u.id = b.blocked_id
                WHERE b.user_id = ?1 ORDER BY u.username COLLATE "C"
                """,
                userID.rawValue, as: { try Self.userRecord($0).user })
        }
    }

    /// Whether `user` takes events of acts by `actor` addressed to them alone.
    static func takesEvents(_ user: UserID, from actor: UserID, _ connection: Connection) throws -> Bool {
        try connection.first(
            "SELECT \(FeedVisibility.takesEventsSQL(user: "?1", from: "?2"))", user.rawValue, actor.rawValue,
            as: { try $0.bool(0) }) ?? true
    }
}
