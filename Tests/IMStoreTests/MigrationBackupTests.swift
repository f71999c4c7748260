import Foundation
import IMStore
import Testing

/// Before a migration the database is copied as it was, beside it with its version in
/// its name (`switchboard-v1.sqlite`), and only the newest two such copies are kept.
@Suite struct MigrationBackupTests {
    /// Four versions: the test's own schema, so that three upgrades can happen.
    static let migrations = (1...4).map { version in
        Migration(version: version, name: "step \(version)", sql: "CREATE TABLE t\(version) (x); INSERT INTO t\(version) VALUES (\(version));")
    }

    /// Opens the database at `path` with the migrations up to `version`, then closes it.
    static func open(_ path: String, upTo version: Int) async throws {
        let database = try SQLiteDatabase(
            configuration: .init(path: path, readers: 1, synchronous: .normal),
            migrations: Array(migrations.prefix(version)))
        await database.close()
    }

    static func copies(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("db-v") }.sorted()
    }

    @Test func eachUpgradeKeepsTheDatabaseOfBeforeAndOnlyTheNewestTwoStay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("db.sqlite")

        try await Self.open(path, upTo: 1)
        #expect(try Self.copies(in: directory).isEmpty, "a new database has nothing to keep")
        try await Self.open(path, upTo: 1)
        #expect(try Self.copies(in: directory).isEmpty, "no migration, no copy")

        try await Self.open(path, upTo: 2)
        #expect(try Self.copies(in: directory) == ["db-v1.sqlite"])
        let first = try SQLiteConnection(path: directory.file("db-v1.sqlite"), readOnly: true)
        #expect(try first.scalar("PRAGMA user_version") == 1)
        #expect(try first.scalar("SELECT x FROM t1") == 1)
        #expect(try first.scalar("SELECT count(*) FROM sqlite_master WHERE name = 't2'") == 0)
        #expect(try first.first("PRAGMA journal_mode", as: { $0.text(0) }) == "delete")

        try await Self.open(path, upTo: 3)
        try await Self.open(path, upTo: 4)
        #expect(try Self.copies(in: directory) == ["db-v2.sqlite", "db-v3.sqlite"])
        let latest = try SQLiteConnection(path: directory.file("db-v3.sqlite"), readOnly: true)
        #expect(try latest.scalar("PRAGMA user_version") == 3)
        #expect(try latest.scalar("SELECT x FROM t3") == 3)
    }

    @Test func noCopiesWhenTurnedOff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("db.sqlite")
        try await Self.open(path, upTo: 1)
        let database = try SQLiteDatabase(
            configuration: .init(path: path, readers: 1, synchronous: .normal, backupsBeforeMigration: 0),
            migrations: Self.migrations)
        await database.close()
        #expect(try Self.copies(in: directory).isEmpty)
    }
}
