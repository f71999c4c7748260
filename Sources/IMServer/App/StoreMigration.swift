import IMStore

/// Moving a server's data between stores, for `switchboard migrate`.
public enum StoreMigration {
    /// What a move did.
    public struct Outcome: Sendable {
        /// Rows copied per table, in the order copied.
        public var rows: [(table: String, count: Int)]
        /// The database's epoch (cursors carry it), the same before and after.
        public var epoch: String
        /// The feed clock after the move.
        public var position: Int64
    }

    /// Copies the SQLite database in `dataDirectory` into the empty PostgreSQL database at
    /// `url` (see `SQLiteToPostgres`).
    public static func sqliteToPostgres(dataDirectory: String, url: String) async throws -> Outcome {
        let report = try await SQLiteToPostgres(directory: dataDirectory, target: PostgresConfiguration(url: url)).run()
        return Outcome(rows: report.rows, epoch: report.epoch, position: report.position)
    }
}
