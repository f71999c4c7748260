import IMProtocol

/// The SQLite engine's own part of account lifecycles (the rest: `Body/AccountLifecycle.swift`).
extension SQLiteStore {
    /// The name a deleted account keeps: `deleted~<id>` (`UserRecord.deletedName`).
    public static func deletedName(_ userID: UserID) -> String { UserRecord.deletedName(userID) }

    public func recordTokenUse(_ uses: [Int64: Timestamp]) async throws {
        guard !uses.isEmpty else { return }
        try await database.write { context in
            for (id, at) in uses {
                try context.connection.execute(
                    "UPDATE tokens SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?", at.milliseconds, id)
            }
        }
    }
}
