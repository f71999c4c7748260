/// One versioned schema change. Versions start at 1 and never change once shipped.
public struct Migration: Sendable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Applies pending migrations in order, each in its own transaction, tracking the
/// version in `PRAGMA user_version`.
///
/// Before migrating a database that holds data (version 1 or later) it keeps a copy of
/// it as it is, beside it with its version in the name (`switchboard-v3.sqlite`), and
/// only the newest `backupsToKeep` of those copies: a migration that goes wrong, or a
/// program that must be rolled back, has the database of before to go back to.
struct Migrator {
    var migrations: [Migration]
    /// Copies of the database from before a migration to keep; 0 takes none.
    var backupsToKeep = 0

    func migrate(_ connection: SQLiteConnection) throws {
        let sorted = migrations.sorted { $0.version < $1.version }
        let latest = sorted.last?.version ?? 0
        let current = Int(try connection.scalar("PRAGMA user_version") ?? 0)
        if current > latest {
            throw StoreError.incompatibleSchema(
                "the database at \(connection.path) has schema version \(current), newer than this program's \(latest); run a newer switchboard")
        }
        if current > 0, current < latest, backupsToKeep > 0 {
            try MigrationBackups(database: connection.path).keep(connection, version: current, newest: backupsToKeep)
        }
        for migration in sorted where migration.version > current {
            try connection.transaction {
                try connection.executeScript(migration.sql)
                try connection.executeScript("PRAGMA user_version = \(migration.version)")
            }
        }
    }
}
