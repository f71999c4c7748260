import CSQLite
import Foundation

/// Backups of a server's SQLite database, taken while the server runs, and checks of a
/// backup file before anything is replaced with it (`switchboard backup` and `restore`;
/// the restore itself is in `DatabaseBackup+Restore.swift`).
///
/// A backup is one file in rollback-journal mode (no `-wal` beside it), copied with
/// SQLite's online backup as one consistent snapshot, checked, synced, and renamed into
/// place: the target path holds either what was there before or the whole backup.
public enum DatabaseBackup {
    /// What a database file holds.
    public struct Summary: Sendable, Equatable {
        public var path: String
        public var schemaVersion: Int
        public var bytes: Int
        public var accounts: Int
        public var messages: Int
    }

    /// Copies the database of the data folder `directory` into `file` (replaced when it
    /// exists) while the server may be writing; runs on a thread of its own.
    public static func backUp(directory: String, to file: String) async throws -> Summary {
        try await onOwnThread { try backUpNow(directory: directory, to: file) }
    }

    /// Checks that `file` is a whole Switchboard database of a schema version this
    /// program knows (it may be older: the server migrates it at start), and what it holds.
    public static func inspect(_ file: String) async throws -> Summary {
        try await onOwnThread { try inspectNow(file) }
    }

    static func backUpNow(directory: String, to file: String) throws -> Summary {
        let database = SQLiteStore.databasePath(in: directory)
        guard FileReplacement.exists(database) else {
            throw BackupError("no database in \(directory) (no \(SQLiteStore.fileName)): is it the server's data folder?")
        }
        for live in [database, database + "-wal", database + "-shm"] where FileReplacement.sameFile(file, live) {
            throw BackupError("\(file) is the database itself: back up to a file outside the data folder's database")
        }
        let source = try open(database, as: "the database in \(directory)")
        _ = try check(source, path: database)
        do {
            try FileReplacement.replace(file, label: "partial") { try source.copyDatabase(to: $0) }
        } catch {
            throw error as? BackupError ?? BackupError("cannot back up \(database) to \(file): \(error)")
        }
        // The copy was checked as it was made (quick_check): its counts and size suffice.
        var summary = try check(open(file, as: file), path: file)
        summary.bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        return summary
    }

    static func inspectNow(_ file: String) throws -> Summary {
        var info = stat()
        guard stat(file, &info) == 0 else { throw BackupError("cannot read \(file): \(FileReplacement.systemReason())") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw BackupError("\(file) is not a file") }
        let connection = try open(file, as: file)
        var summary = try check(connection, path: file)
        let integrity = try readable(file) { try connection.rows("PRAGMA integrity_check", as: { $0.text(0) }) }
        guard integrity == ["ok"] else {
            throw BackupError("\(file) is damaged (\(integrity.prefix(3).joined(separator: "; "))): use another backup")
        }
        summary.bytes = Int(info.st_size)
        return summary
    }

    /// Opens a database file read-only.
    private static func open(_ path: String, as name: String) throws -> SQLiteConnection {
        do {
            return try SQLiteConnection(path: path, readOnly: true)
        } catch {
            throw BackupError("cannot open \(name): \(error)")
        }
    }

    /// Checks that the file is a Switchboard database of a known schema version; its
    /// version and counts.
    static func check(_ connection: SQLiteConnection, path: String) throws -> Summary {
        let version = try readable(path) { Int(try connection.scalar("PRAGMA user_version") ?? 0) }
        let tables = try readable(path) {
            Set(try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'", as: { $0.text(0) }))
        }
        let epoch = tables.contains("meta")
            ? try readable(path) { try connection.first("SELECT value FROM meta WHERE key = 'epoch'", as: { $0.text(0) }) }
            : nil
        guard version > 0, epoch != nil, tables.isSuperset(of: ["users", "messages"]) else {
            throw BackupError("\(path) is a SQLite database, but not a Switchboard one")
        }
        guard version <= Schema.latestVersion else {
            throw BackupError(
                "\(path) has schema version \(version), newer than this program's \(Schema.latestVersion): "
                    + "restore it with the switchboard that wrote it, or a newer one")
        }
        let accounts = try readable(path) { Int(try connection.scalar("SELECT count(*) FROM users") ?? 0) }
        let messages = try readable(path) { Int(try connection.scalar("SELECT count(*) FROM messages") ?? 0) }
        return Summary(path: path, schemaVersion: version, bytes: 0, accounts: accounts, messages: messages)
    }

    /// Runs a read, turning SQLite's "not a database" into a sentence.
    private static func readable<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError where error.code & 0xFF == SQLITE_NOTADB {
            throw BackupError("\(path) is not a SQLite database")
        }
    }

    /// Runs blocking file and SQLite work off the cooperative pool.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let thread = DedicatedThread(name: "switchboard-backup")
        defer { thread.stop() }
        return try await thread.run(body)
    }
}
