#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Foundation

extension DatabaseBackup {
    /// What a restore did.
    public struct Restored: Sendable {
        /// The backup that is now the database.
        public var backup: Summary
        /// Where the database it replaced was kept, when there was one.
        public var previous: String?
    }

    /// Makes the backup `file` the database of the data folder `directory` (created when
    /// missing), refusing while a server holds the folder, and before anything is
    /// replaced, when the file is not a whole Switchboard database of a known version.
    ///
    /// Never half-written: the backup is copied beside the database and renamed over it,
    /// so the database path holds the old database or the whole new one. The old one is
    /// kept beside it as `switchboard.before-restore-<time>.sqlite`. The restored database
    /// gets a new feed epoch (`FeedEpochs`): clients' cursors up to the backup read on,
    /// later ones get 410 and re-sync.
    public static func restore(from file: String, into directory: String, now: Date = Date()) async throws -> Restored {
        try await onOwnThread { try restoreNow(from: file, into: directory, now: now) }
    }

    static func restoreNow(from file: String, into directory: String, now: Date) throws -> Restored {
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder) {
            guard mkdir(directory, 0o700) == 0 else {
                throw BackupError("cannot create the data folder \(directory): \(FileReplacement.systemReason())")
            }
        } else if !isFolder.boolValue {
            throw BackupError("\(directory) is not a folder")
        }
        let lock: DataFolderLock
        do {
            lock = try DataFolderLock(directory: directory)
        } catch {
            throw BackupError("\(error.description); nothing was restored")
        }
        defer { lock.release() }
        let database = SQLiteStore.databasePath(in: directory)
        if FileReplacement.sameFile(file, database) {
            throw BackupError("\(file) is the data folder's database itself: restore from a backup file")
        }
        let backup = try inspectNow(file)
        do {
            let previous = try FileReplacement.replace(database, label: "restoring") { temporary in
                try SQLiteConnection(path: file, readOnly: true).copyDatabase(to: temporary)
                try FeedEpochs.fork(SQLiteConnection(path: temporary))
                return try setAside(database, now: now)
            }
            return Restored(backup: backup, previous: previous)
        } catch {
            throw error as? BackupError ?? BackupError("cannot restore \(file) into \(directory): \(error); nothing was replaced")
        }
    }

    /// Keeps the database being replaced (when there is one) as a file of its own beside
    /// it, and leaves no write-ahead log at the database path: the new file renamed there
    /// next must not meet the old one's log, which SQLite would apply to it.
    ///
    /// The old database's log is first copied into it (a checkpoint) and the database
    /// switched out of WAL mode, which SQLite only does when no other connection has it
    /// open. One it cannot read that way (damaged) is moved aside with its log as it is.
    private static func setAside(_ database: String, now: Date) throws -> String? {
        guard FileReplacement.exists(database) else {
            // A log without its database is of no use and must not meet the new one.
            unlink(database + "-wal")
            unlink(database + "-shm")
            return nil
        }
        let kept = keptName(for: database, now: now)
        let inUse = BackupError(
            "the database in \((database as NSString).deletingLastPathComponent) is open in another process "
                + "(a 'switchboard user --data' or a 'sqlite3'?): close it first; nothing was replaced")
        do {
            let old = try SQLiteConnection(path: database)
            try old.executeScript("PRAGMA busy_timeout = 0;")
            guard try old.first("PRAGMA journal_mode = DELETE", as: { $0.text(0) }) == "delete" else { throw inUse }
        } catch let error as SQLiteError where [SQLITE_CORRUPT, SQLITE_NOTADB].contains(error.code & 0xFF) {
            // Damaged: keep its log beside the kept copy, under the name SQLite looks for.
            if FileReplacement.exists(database + "-wal"), rename(database + "-wal", kept + "-wal") != 0 {
                throw BackupError("cannot move \(database)-wal aside: \(FileReplacement.systemReason()); nothing was replaced")
            }
        } catch let error as SQLiteError where [SQLITE_BUSY, SQLITE_LOCKED].contains(error.code & 0xFF) {
            throw inUse
        }
        unlink(database + "-shm")
        guard link(database, kept) == 0 else {
            throw BackupError("cannot keep the old database as \(kept): \(FileReplacement.systemReason()); nothing was replaced")
        }
        try FileReplacement.sync(folderOf: database)
        return kept
    }

    /// `switchboard.before-restore-20261201T101500Z.sqlite` beside the database.
    static func keptName(for database: String, now: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = (database as NSString).deletingPathExtension
        return "\(base).before-restore-\(formatter.string(from: now)).sqlite"
    }
}
