import IMStore
import PostgresTestSupport
import Testing

/// Migrations apply once across nodes starting together, under one advisory lock.
@Suite struct PostgresMigratorTests {
    /// Three versions; each records that it ran, and version 1 fails if run twice.
    static let migrations = [
        Migration(version: 1, name: "items", sql: """
            CREATE TABLE items (id bigserial PRIMARY KEY, name text NOT NULL);
            CREATE TABLE runs (version int NOT NULL, backend int NOT NULL);
            INSERT INTO runs VALUES (1, pg_backend_pid());
            """),
        Migration(version: 2, name: "item owners", sql: """
            ALTER TABLE items ADD COLUMN owner text;
            INSERT INTO runs VALUES (2, pg_backend_pid());
            """),
        Migration(version: 3, name: "item index", sql: """
            CREATE INDEX items_by_owner ON items (owner);
            INSERT INTO runs VALUES (3, pg_backend_pid());
            """),
    ]

    @Test func nodesStartingTogetherApplyEachMigrationOnce() async throws {
        try await withPostgresDatabase { database in
            let nodes = 6
            // The test holds the lock while every node starts, so all of them are
            // waiting for it, then lets go.
            let holder = PostgresPool(configuration: database.poolConfiguration(maxConnections: 1))
            let key = PostgresMigrator(migrations: []).lockKey
            try await holder.withConnection { try $0.execute("SELECT pg_advisory_lock($1)", key) }
            let pools = (0..<nodes).map { _ in PostgresPool(configuration: database.poolConfiguration(maxConnections: 1)) }
            let versions = try await withThrowingTaskGroup(of: Int.self) { group in
                for pool in pools {
                    group.addTask {
                        try await pool.withConnection { try PostgresMigrator(migrations: Self.migrations.shuffled()).migrate($0) }
                    }
                }
                try await database.waitUntil("\(nodes) nodes wait for the migration lock") {
                    try await holder.withConnection { connection in
                        try connection.first(
                            """
                            SELECT count(*) FROM pg_locks
                            WHERE locktype = 'advisory' AND NOT granted AND objid::int8 = $1
                              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                            """,
                            key & 0xFFFF_FFFF) { try $0.int(0) } == Int64(nodes)
                    }
                }
                try await holder.withConnection { try $0.execute("SELECT pg_advisory_unlock($1)", key) }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(versions == Array(repeating: 3, count: nodes))
            let runs = try await holder.withConnection { connection in
                try connection.rows("SELECT version, count(*) FROM runs GROUP BY version ORDER BY version") { [try $0.int(0), try $0.int(1)] }
            }
            #expect(runs == [[1, 1], [2, 1], [3, 1]])
            let recorded = try await holder.withConnection { connection in
                try connection.rows("SELECT version, name FROM switchboard_migrations ORDER BY version") { "\(try $0.int(0)) \(try $0.text(1))" }
            }
            #expect(recorded == ["1 items", "2 item owners", "3 item index"])
            for pool in pools + [holder] { await pool.close() }
        }
    }

    @Test func aDatabaseFromANewerVersionIsRefused() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try PostgresMigrator(migrations: Self.migrations).migrate($0) }
            let older = await outcome {
                try await pool.withConnection { try PostgresMigrator(migrations: Array(Self.migrations.prefix(2))).migrate($0) }
            }
            guard case .incompatibleSchema(let message) = try #require(older.failure as? StoreError) else {
                Issue.record("not refused: \(String(describing: older.failure))")
                return
            }
            #expect(message.contains("schema version 3, newer than this program's 2"))
            // Running again with the same migrations finds nothing to do.
            #expect(try await pool.withConnection { try PostgresMigrator(migrations: Self.migrations).migrate($0) } == 3)
            #expect(try await pool.withConnection { try $0.first("SELECT count(*) FROM runs") { try $0.int(0) } } == 3)
        }
    }

    @Test func aFailingMigrationIsUndoneWholeAndReleasesTheLock() async throws {
        try await withPostgresPool { pool, _ in
            var migrations = Array(Self.migrations.prefix(2))
            migrations[1].sql = "ALTER TABLE items ADD COLUMN owner text; INSERT INTO no_such_table VALUES (1);"
            let broken = migrations
            let result = await outcome { try await pool.withConnection { try PostgresMigrator(migrations: broken).migrate($0) } }
            let error = try #require(result.failure as? PostgresError)
            #expect(error.sqlState == "42P01")
            #expect(error.context.hasPrefix("migration 2 (item owners)"))
            let (version, ownerColumns) = try await pool.withConnection { connection in
                (try PostgresMigrator.version(connection),
                 try connection.first("SELECT count(*) FROM information_schema.columns WHERE table_name = 'items' AND column_name = 'owner'") { try $0.int(0) })
            }
            #expect(version == 1 && ownerColumns == 0)
            // The lock was let go: a node with the fixed migration goes ahead (a held
            // lock would make it give up after a second).
            let fixed = PostgresMigrator(migrations: Self.migrations, lockTimeout: .seconds(1))
            #expect(try await pool.withConnection { try fixed.migrate($0) } == 3)
        }
    }

    @Test func aNodeGivesUpWaitingForTheLockAndSaysWhoHoldsIt() async throws {
        try await withPostgresDatabase { database in
            let holder = PostgresPool(configuration: database.poolConfiguration(maxConnections: 1))
            let migrator = PostgresMigrator(migrations: Self.migrations, lockTimeout: .milliseconds(100))
            let holderPID = try await holder.withConnection { connection in
                try connection.execute("SELECT pg_advisory_lock($1)", migrator.lockKey)
                return connection.backendPID
            }
            let node = PostgresPool(configuration: database.poolConfiguration(maxConnections: 1))
            let result = await outcome { try await node.withConnection { try migrator.migrate($0) } }
            let error = try #require(result.failure as? PostgresError)
            #expect(error.kind == .lockTimeout)
            #expect(error.message.contains("held by backend \(holderPID)"))
            #expect(try await node.withConnection { try PostgresMigrator.version($0) } == 0)
            // The session's own lock_timeout is back to what it was.
            #expect(try await node.withConnection { try $0.first("SELECT current_setting('lock_timeout')") { try $0.text(0) } } == "0")
            await holder.close()
            await node.close()
        }
    }
}
