import IMServer
import Lifecycle
import PostgresTestSupport

/// The stores server tests run on: SQLite in a fresh data folder, or a fresh database of
/// the private PostgreSQL test cluster.
public enum TestStore: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }
}

/// Runs `body` with `count` servers (nodes) on one fresh store, then stops them and
/// removes the store, however `body` ends. Several nodes need `.postgres`: with
/// `.sqlite` each gets a data folder of its own.
public func withNodes<T>(
    _ count: Int, store: TestStore = .postgres, time: any TimeSource = SystemTime(),
    _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: ([TestServer]) async throws -> T
) async throws -> T {
    var database: (PostgresTestCluster, String)?
    if store == .postgres {
        let cluster = try await PostgresTestCluster.shared()
        database = (cluster, try await cluster.createStoreDatabase())
    }
    var servers: [TestServer] = []
    return try await ensuring({
        for _ in 0..<count {
            servers.append(
                try await TestServer.start(time: time) { config in
                    if let (cluster, name) = database {
                        config.store = .postgres(url: cluster.url(database: name))
                        config.storeConnections = 4
                    }
                    configure(&config)
                })
        }
        return try await body(servers)
    }) {
        for server in servers {
            await server.stop()
            server.removeData()
        }
        if let (cluster, name) = database { try? await cluster.dropDatabase(name) }
    }
}

/// Runs `body` with the URL of a fresh, empty database of the PostgreSQL test cluster (no
/// schema), dropped after however `body` ends.
public func withEmptyPostgresDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
    let cluster = try await PostgresTestCluster.shared()
    let name = try await cluster.createDatabase()
    return try await ensuring({ try await body(cluster.url(database: name)) }) {
        try? await cluster.dropDatabase(name)
    }
}
