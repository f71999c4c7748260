import IMProtocol

/// Blocks: whom a user takes no one-to-one messages from, and no events addressed to them
/// alone (`FeedVisibility.takesEventsSQL`). Nobody is told: the blocked only see their
/// sends refused (`StoreError.blocked`, checked with each send).
extension SQLiteStore: BlockStore {
    public func block(_ userID: UserID, _ blockedID: UserID) async throws -> Bool {
        try await database.write { [self] context in
            let connection = context.connection
            try requireUser(blockedID, connection)
            return try connection.execute(
                "INSERT INTO blocks (user_id, blocked_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                userID.rawValue, blockedID.rawValue, clock().milliseconds) == 1
        }
    }

    public func unblock(_ userID: UserID, _ blockedID: UserID) async throws -> Bool {
        try await database.write { context in
            try context.connection.execute(
                "DELETE FROM blocks WHERE user_id = ? AND blocked_id = ?", userID.rawValue, blockedID.rawValue) == 1
        }
    }

    public func blocked(by userID: UserID) async throws -> [User] {
        try await database.read { connection in
            try connection.rows(
                "SELECT \(Self.userColumns) FROM blocks b JOIN users u ON u.id = b.blocked_id WHERE b.user_id = ? ORDER BY u.username",
                userID.rawValue, as: { Self.userRecord($0).user })
        }
    }
}

extension SQLiteStore {
    /// Whether `user` takes events of acts by `actor` addressed to them alone.
    func takesEvents(_ user: UserID, from actor: UserID, _ connection: SQLiteConnection) throws -> Bool {
        try connection.scalar(
            "SELECT \(FeedVisibility.takesEventsSQL(user: "?1", from: "?2"))", user.rawValue, actor.rawValue) == 1
    }
}
