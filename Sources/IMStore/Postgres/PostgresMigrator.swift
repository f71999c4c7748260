/// Applies versioned migrations to a PostgreSQL database exactly once, however many
/// server nodes start at the same time.
///
/// Every node takes one advisory lock (`pg_advisory_lock`) before it reads the schema
/// version, so the first one applies the pending migrations, each in its own transaction
/// with its version row, and the others then find nothing to do. The lock belongs to the
/// session: if the migrating node dies, PostgreSQL rolls back its open migration and
/// releases the lock, and the next node takes over. A database whose version is newer
/// than the newest migration known here is refused, as `Migrator` does for SQLite.
public struct PostgresMigrator: Sendable {
    /// The migrations, in any order; versions start at 1 and never change once shipped.
    public var migrations: [Migration]
    /// The advisory lock every node of one deployment takes (the default spells
    /// "SWBMIGRA"); deployments sharing one database need different keys.
    public var lockKey: Int64
    /// How long a node waits for another's migration before giving up.
    public var lockTimeout: Duration

    /// A migrator for `migrations` with the default lock key and a ten-minute wait.
    public init(migrations: [Migration], lockKey: Int64 = 0x5357_424D_4947_5241, lockTimeout: Duration = .seconds(600)) {
        self.migrations = migrations
        self.lockKey = lockKey
        self.lockTimeout = lockTimeout
    }

    /// The table holding one row per applied migration.
    static let versionTable = "switchboard_migrations"

    /// Brings the database up to the newest migration; returns the schema version.
    @discardableResult
    public func migrate(_ connection: PostgresConnection) throws -> Int {
        let sorted = migrations.sorted { $0.version < $1.version }
        guard Set(sorted.map(\.version)).count == sorted.count, sorted.allSatisfy({ $0.version > 0 }) else {
            throw StoreError.incompatibleSchema("migration versions must be distinct and positive: \(sorted.map(\.version))")
        }
        let latest = sorted.last?.version ?? 0
        try lock(connection)
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock($1)", lockKey) }
        try connection.executeScript(
            """
            CREATE TABLE IF NOT EXISTS \(Self.versionTable) (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let current = try Self.version(connection)
        if current > latest {
            throw StoreError.incompatibleSchema(
                "the database \(connection.target) has schema version \(current), newer than this program's \(latest); run a newer switchboard")
        }
        for migration in sorted where migration.version > current {
            do {
                try connection.transaction {
                    try connection.executeScript(migration.sql)
                    try connection.execute(
                        "INSERT INTO \(Self.versionTable) (version, name) VALUES ($1, $2)", migration.version,
                        migration.name)
                }
            } catch var error as PostgresError {
                error.context = "migration \(migration.version) (\(migration.name)): \(error.context)"
                throw error
            }
        }
        return max(current, latest)
    }

    /// The schema version of the database: the newest applied migration, 0 for none.
    public static func version(_ connection: PostgresConnection) throws -> Int {
        let exists = try connection.first("SELECT to_regclass($1) IS NOT NULL", versionTable) { try $0.bool(0) } ?? false
        guard exists else { return 0 }
        return Int(try connection.first("SELECT coalesce(max(version), 0)::int8 FROM \(versionTable)") { try $0.int(0) } ?? 0)
    }

    /// Takes the migration lock, waiting at most `lockTimeout`.
    private func lock(_ connection: PostgresConnection) throws {
        let previous = try connection.first("SELECT current_setting('lock_timeout')") { try $0.text(0) } ?? "0"
        let milliseconds = max(1, lockTimeout.components.seconds * 1000 + lockTimeout.components.attoseconds / 1_000_000_000_000_000)
        try connection.execute("SELECT set_config('lock_timeout', $1, false)", "\(milliseconds)ms")
        defer { _ = try? connection.execute("SELECT set_config('lock_timeout', $1, false)", previous) }
        do {
            try connection.execute("SELECT pg_advisory_lock($1)", lockKey)
        } catch var error as PostgresError where error.kind == .lockTimeout {
            error.message = "waited \(lockTimeout) for the migration lock, held by \(try holder(connection))"
            throw error
        }
    }

    /// Who holds the migration lock, for the message of a node that gave up waiting.
    private func holder(_ connection: PostgresConnection) throws -> String {
        // A bigint key is kept as two 32-bit halves: classid (high) and objid (low).
        let description = try connection.first(
            """
            SELECT a.pid::int8, coalesce(a.application_name, ''), coalesce(host(a.client_addr), 'local'),
                   coalesce(a.backend_start, now())
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.classid::int8 = $1 AND l.objid::int8 = $2
            """, (lockKey >> 32) & 0xFFFF_FFFF, lockKey & 0xFFFF_FFFF
        ) { row in
            "backend \(try row.int(0)) (application '\(try row.text(1))', client \(try row.text(2)), connected since \(try row.timestamp(3)))"
        }
        return description ?? "a session that has since let go of it"
    }
}
