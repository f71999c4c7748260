import Foundation
import IMStore
import Synchronization

/// A private PostgreSQL cluster for tests: a throw-away data folder, loopback only, a
/// free port, a random password, durability off. One per test process, shared by every
/// suite: started on first use, stopped when the process exits.
///
/// The server runs as the `postgres` user when the tests run as root (CI does, and
/// `initdb` refuses root). It is started with a parent-death signal, so a test process
/// that is killed takes its cluster with it; a folder left behind by a killed run is
/// swept by the next one.
public final class PostgresTestCluster: Sendable {
    /// The loopback port the server listens on.
    public let port: Int
    /// The throw-away folder: data, socket, log.
    public let folder: String
    /// The superuser tests connect as.
    public let user = "switchboard_test"
    let password: String
    /// The pool of administrative sessions on the `postgres` database.
    public let admin: PostgresPool
    private let databases = Atomic<Int>(0)

    /// The server's (postmaster's) process id; a new one after ``startServer()``.
    public var serverPID: Int32 { server.withLock { $0.pid } }
    /// The running server, replaced when it is started again.
    let server: Mutex<Postmaster>
    /// How it was started (and is started again).
    let command: [String]

    init(port: Int, folder: String, password: String, server: Postmaster, command: [String]) {
        self.port = port
        self.server = Mutex(server)
        self.command = command
        self.folder = folder
        self.password = password
        admin = PostgresPool(
            configuration: PostgresPool.Configuration(
                connection: PostgresConfiguration(
                    url: "postgresql://\(user):\(password)@127.0.0.1:\(port)/postgres",
                    applicationName: "switchboard-test-admin"),
                // Suites create their databases all at once, each CREATE DATABASE taking
                // a while: wait rather than fail.
                maxConnections: 8, acquireTimeout: .seconds(300)))
    }

    /// The URL of one database of this cluster.
    public func url(database: String) -> String {
        "postgresql://\(user):\(password)@127.0.0.1:\(port)/\(database)"
    }

    /// The process's cluster, started on first use. A failed start fails every caller
    /// with the same error (what was run and what it printed).
    public static func shared() async throws -> PostgresTestCluster {
        try await withCheckedThrowingContinuation { continuation in
            let startHere = shared.withLock { state -> Bool in
                switch state {
                case .ready(let result):
                    continuation.resume(with: result)
                    return false
                case .starting(let waiting):
                    state = .starting(waiting + [continuation])
                    return false
                case .idle:
                    state = .starting([continuation])
                    return true
                }
            }
            guard startHere else { return }
            launch(durable: false) { result in
                let waiting = shared.withLock { state -> [CheckedContinuation<PostgresTestCluster, any Error>] in
                    defer { state = .ready(result) }
                    if case .starting(let waiting) = state { return waiting }
                    return []
                }
                for waiter in waiting { waiter.resume(with: result) }
            }
        }
    }

    /// A cluster of its own (not the shared one), stopped when the process exits;
    /// `durable` turns fsync and synchronous commit on, as in production (benchmarks).
    public static func start(durable: Bool) async throws -> PostgresTestCluster {
        try await withCheckedThrowingContinuation { continuation in
            launch(durable: durable) { continuation.resume(with: $0) }
        }
    }

    /// Makes and starts a cluster on a thread of its own: initdb and the start take
    /// seconds of blocking work, which must not hold a thread of the cooperative pool.
    private static func launch(
        durable: Bool, then finish: @escaping @Sendable (Result<PostgresTestCluster, any Error>) -> Void
    ) {
        let thread = Thread { finish(Result { try ClusterLauncher(durable: durable).launch() }) }
        thread.name = "postgres-test-cluster"
        thread.start()
    }

    private enum SharedState {
        case idle
        case starting([CheckedContinuation<PostgresTestCluster, any Error>])
        case ready(Result<PostgresTestCluster, any Error>)
    }

    private static let shared = Mutex(SharedState.idle)

    // MARK: Databases

    /// A database name no test has used yet in this process.
    public func newDatabaseName() -> String {
        "test_\(getpid())_\(databases.add(1, ordering: .relaxed).newValue)"
    }

    /// Creates an empty database with a name of its own.
    public func createDatabase() async throws -> String {
        let name = newDatabaseName()
        try await createDatabase(named: name)
        return name
    }

    /// Creates an empty database named `name` (from `newDatabaseName()`), or a copy of
    /// `template` (another database made here).
    public func createDatabase(named name: String, template: String = "template0") async throws {
        try Self.checkName(name)
        if template != "template0" { try Self.checkName(template) }
        // FILE_COPY: about twice as fast as the default WAL_LOG for an empty template
        // when the cluster does not fsync.
        try await admin.withConnection {
            try $0.executeScript("CREATE DATABASE \(name) TEMPLATE \(template) STRATEGY FILE_COPY")
        }
    }

    /// A fresh database with the PostgreSQL store's schema: a copy of one migrated once
    /// per process (a copy takes a fraction of the time the migration does).
    public func createStoreDatabase() async throws -> String {
        let template = try await storeTemplate.value(self)
        let name = newDatabaseName()
        try await createDatabase(named: name, template: template)
        return name
    }

    private let storeTemplate = StoreTemplate()

    /// Drops a database, ending its sessions first.
    public func dropDatabase(_ name: String) async throws {
        try Self.checkName(name)
        try await admin.withConnection { try $0.executeScript("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }

    /// Identifiers cannot be bound: only names made here, of letters, digits and `_`.
    private static func checkName(_ name: String) throws {
        guard name.hasPrefix("test_"), name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw PostgresTestError("not a test database name: \(name)")
        }
    }
}

/// The migrated database every store database of a cluster is copied from, made once.
private actor StoreTemplate {
    private var making: Task<String, any Error>?

    func value(_ cluster: PostgresTestCluster) async throws -> String {
        if let making { return try await making.value }
        // Awaited by every caller; it ends by itself.
        let started = Task {
            let name = cluster.newDatabaseName()
            try await cluster.createDatabase(named: name)
            let pool = PostgresPool(
                configuration: PostgresPool.Configuration(
                    connection: PostgresConfiguration(url: cluster.url(database: name)), maxConnections: 1))
            do {
                try await pool.withConnection { try PostgresMigrator(migrations: PostgresSchema.migrations).migrate($0) }
            } catch {
                await pool.close()
                throw error
            }
            // No session may stay on a template while it is copied.
            await pool.close()
            return name
        }
        making = started
        return try await started.value
    }
}

/// A failure of the test cluster, with what it ran and what that printed.
public struct PostgresTestError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
