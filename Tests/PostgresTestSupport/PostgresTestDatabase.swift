import Foundation
import IMStore

/// A fresh, empty database on the process's test cluster, for one test.
public struct PostgresTestDatabase: Sendable {
    /// The cluster it lives on.
    public let cluster: PostgresTestCluster
    /// Its name (`test_<pid>_<n>`).
    public let name: String

    /// A database of `cluster` (which need not exist yet).
    public init(cluster: PostgresTestCluster, name: String) {
        self.cluster = cluster
        self.name = name
    }

    /// How to reach it.
    public var configuration: PostgresConfiguration {
        PostgresConfiguration(url: cluster.url(database: name), applicationName: "switchboard-test")
    }

    /// A pool configuration for it; `acquireTimeout` is generous so a busy machine does
    /// not fail a test that is not about timeouts.
    public func poolConfiguration(maxConnections: Int = 4, maxWaiting: Int = 1000, acquireTimeout: Duration = .seconds(60))
        -> PostgresPool.Configuration
    {
        PostgresPool.Configuration(
            connection: configuration, maxConnections: maxConnections, maxWaiting: maxWaiting,
            acquireTimeout: acquireTimeout)
    }

    /// Waits until the server process `pid` has ended (after `pg_terminate_backend`);
    /// the guard only stops a test that would otherwise hang.
    public func waitForBackendExit(_ pid: Int32, guardSeconds: Double = 30) async throws {
        try await waitUntil("backend \(pid) ends", guardSeconds: guardSeconds) {
            try await cluster.admin.withConnection { connection in
                try connection.first("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid) { try $0.int(0) } == 0
            }
        }
    }

    /// Polls `condition` (a question to the server, which cannot call back) every 10 ms;
    /// the guard only stops a test that would otherwise hang.
    public func waitUntil(
        _ what: String, guardSeconds: Double = 30, _ condition: @Sendable () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(guardSeconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw PostgresTestError("gave up waiting until \(what) after \(guardSeconds) s")
    }
}

/// Runs `body` with a fresh database on the test cluster (started on first use), then
/// drops it, however `body` ends.
public func withPostgresDatabase<T>(_ body: (PostgresTestDatabase) async throws -> T) async throws -> T {
    let cluster = try await PostgresTestCluster.shared()
    let database = PostgresTestDatabase(cluster: cluster, name: try await cluster.createDatabase())
    do {
        let result = try await body(database)
        try await cluster.dropDatabase(database.name)
        return result
    } catch {
        try? await cluster.dropDatabase(database.name)
        throw error
    }
}

/// Runs `body` with a pool on a fresh database, closing the pool and dropping the
/// database after.
public func withPostgresPool<T>(
    maxConnections: Int = 4, _ body: (PostgresPool, PostgresTestDatabase) async throws -> T
) async throws -> T {
    try await withPostgresDatabase { database in
        let pool = PostgresPool(configuration: database.poolConfiguration(maxConnections: maxConnections))
        do {
            let result = try await body(pool, database)
            await pool.close()
            return result
        } catch {
            await pool.close()
            throw error
        }
    }
}
