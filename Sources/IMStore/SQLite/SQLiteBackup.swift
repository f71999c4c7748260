import CSQLite
import Foundation

/// SQLite's online backup (`sqlite3_backup_*`): copies one connection's database, page by
/// page, into another connection's database.
///
/// Used in one step (`copyAll`): the whole copy is read in one read transaction, so it
/// is one consistent snapshot even while another process writes (in WAL mode writers go
/// on; only checkpoints cannot copy past the snapshot until it ends). A copy made in
/// several steps would start over each time another process commits in between, and
/// under steady writes might never finish.
final class SQLiteBackup {
    private let handle: OpaquePointer
    // Both connections must outlive the backup handle.
    private let source: SQLiteConnection
    private let destination: SQLiteConnection

    init(from source: SQLiteConnection, to destination: SQLiteConnection) throws {
        guard let handle = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(destination.handle),
                message: String(cString: sqlite3_errmsg(destination.handle)),
                context: "starting a backup of \(source.path) into \(destination.path)")
        }
        self.handle = handle
        self.source = source
        self.destination = destination
    }

    deinit { sqlite3_backup_finish(handle) }

    /// Copies every page. While another connection holds a lock the copy needs (SQLite
    /// answers BUSY or LOCKED: a WAL being recovered, a rollback-journal writer), it tries
    /// again for up to ten seconds.
    func copyAll() throws {
        var attempts = 0
        while true {
            let rc = sqlite3_backup_step(handle, -1)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_BUSY || rc == SQLITE_LOCKED, attempts < 1000 else {
                throw SQLiteError(
                    code: rc, message: String(cString: sqlite3_errstr(rc)),
                    context: "copying \(source.path) into \(destination.path)")
            }
            attempts += 1
            usleep(10_000)
        }
    }
}

extension SQLiteConnection {
    /// Copies this connection's database, as one consistent snapshot, into the empty or
    /// missing database file at `path`, leaves that copy in rollback-journal mode (one
    /// file, no `-wal` beside it), synced to disk, and checks it (`PRAGMA quick_check`).
    func copyDatabase(to path: String) throws {
        let destination = try SQLiteConnection(path: path)
        try destination.executeScript("PRAGMA synchronous = FULL;")
        try SQLiteBackup(from: self, to: destination).copyAll()
        let mode = try destination.first("PRAGMA journal_mode = DELETE", as: { $0.text(0) })
        guard mode == "delete" else {
            throw SQLiteError(code: SQLITE_ERROR, message: "journal mode is \(mode ?? "unknown")", context: "finishing the copy \(path)")
        }
        let check = try destination.rows("PRAGMA quick_check", as: { $0.text(0) })
        guard check == ["ok"] else {
            throw SQLiteError(
                code: SQLITE_CORRUPT, message: check.prefix(3).joined(separator: "; "), context: "checking the copy \(path)")
        }
    }
}
