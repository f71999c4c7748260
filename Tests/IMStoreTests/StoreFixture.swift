import Foundation
import IMProtocol
import IMStore
import PostgresTestSupport
import TestSupport
import Testing

/// The stores every storage test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// Where one test's store lives (a folder for SQLite, a database of the test cluster for
/// PostgreSQL), opened as often as the test likes, and looked into from outside the store
/// for the few checks that need it.
final class StoreFixture: Sendable {
    let kind: StoreKind
    private let directory: TemporaryDirectory?
    fileprivate let database: PostgresTestDatabase?

    fileprivate init(kind: StoreKind, directory: TemporaryDirectory?, database: PostgresTestDatabase?) {
        self.kind = kind
        self.directory = directory
        self.database = database
    }

    /// An empty place for a store of `kind`.
    static func make(_ kind: StoreKind) async throws -> StoreFixture {
        switch kind {
        case .sqlite:
            return StoreFixture(kind: kind, directory: try TemporaryDirectory(), database: nil)
        case .postgres:
            let cluster = try await PostgresTestCluster.shared()
            let name = try await cluster.createStoreDatabase()
            return StoreFixture(kind: kind, directory: nil, database: PostgresTestDatabase(cluster: cluster, name: name))
        }
    }

    /// Runs `body` with an empty place for a store of `kind`, removed after however
    /// `body` ends.
    static func with<T>(_ kind: StoreKind, _ body: (StoreFixture) async throws -> T) async throws -> T {
        let fixture = try await make(kind)
        return try await ensuring({ try await body(fixture) }) { await fixture.remove() }
    }

    /// The PostgreSQL store's database (nil for SQLite).
    var postgresDatabase: PostgresTestDatabase? { database }

    /// The SQLite store's folder ("" for PostgreSQL).
    var directoryPath: String { directory?.path ?? "" }

    /// Opens (again) the store.
    func open(clock: TestClock = TestClock(step: 1)) async throws -> any ServerStore {
        if let directory { return try openStore(directory, clock: clock) }
        guard let database else { throw StoreTestError("no store") }
        return try await PostgresStore.open(
            PostgresStore.Configuration(connection: database.configuration, readConnections: 4, acquireTimeout: .seconds(60)),
            clock: clock.function)
    }

    /// Removes the folder or drops the database.
    func remove() async {
        directory?.remove()
        if let database { try? await database.cluster.dropDatabase(database.name) }
    }

    /// A number the store's database answers a question with, asked over a connection
    /// of its own (so it sees only what was committed). The SQL is written for both
    /// databases: no parameters, plain functions.
    func count(_ sql: String) throws -> Int64 {
        if let directory {
            return try SQLiteConnection(path: storePath(directory), readOnly: true).scalar(sql) ?? -1
        }
        guard let database else { throw StoreTestError("no store") }
        let connection = try PostgresConnection(configuration: database.configuration)
        return try connection.first(sql) { try $0.int(0) } ?? -1
    }

    /// Runs a change behind the store's back (as another program, or an edit the store
    /// does not offer yet, would).
    func execute(_ sql: String) throws {
        if let directory {
            try SQLiteConnection(path: storePath(directory)).executeScript(sql)
            return
        }
        guard let database else { throw StoreTestError("no store") }
        try PostgresConnection(configuration: database.configuration).executeScript(sql)
    }
}

extension StoreFixture {
    /// Runs `body` with a place for a store of `kind` that holds no schema at all (for
    /// PostgreSQL, a database not copied from the migrated template), removed after.
    static func withUnmigrated<T>(_ kind: StoreKind, _ body: (StoreFixture) async throws -> T) async throws -> T {
        let fixture: StoreFixture
        switch kind {
        case .sqlite:
            fixture = try await make(kind)
        case .postgres:
            let cluster = try await PostgresTestCluster.shared()
            let name = try await cluster.createDatabase()
            fixture = StoreFixture(kind: kind, directory: nil, database: PostgresTestDatabase(cluster: cluster, name: name))
        }
        return try await ensuring({ try await body(fixture) }) { await fixture.remove() }
    }

    /// Brings the empty place to the store's schema `version` only, as an older
    /// switchboard left it (`migrate` tests open the store on it afterwards).
    func migrate(upTo version: Int) async throws {
        switch kind {
        case .sqlite:
            let database = try SQLiteDatabase(
                configuration: .init(path: directoryPath + "/switchboard.sqlite", readers: 1, synchronous: .normal),
                migrations: Schema.migrations.filter { $0.version <= version })
            await database.close()
        case .postgres:
            guard let database else { throw StoreTestError("no store") }
            let connection = try PostgresConnection(configuration: database.configuration)
            _ = try PostgresMigrator(migrations: PostgresSchema.migrations.filter { $0.version <= version })
                .migrate(connection)
        }
    }
}

struct StoreTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
