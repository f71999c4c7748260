import CSQLite
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One SQLite connection with a cache of prepared statements.
///
/// Used by one thread at a time (the database's writer or one reader), so it takes no
/// locks; `SQLiteDatabase` hands it out. Every value is bound as a parameter.
public final class SQLiteConnection: StoreConnection, @unchecked Sendable {
    // @unchecked: a connection is owned by exactly one database thread at a time (the
    // writer, or one reader), which is the only place its methods are called.
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    public let path: String
    /// Told of this connection's row changes (`observeRowChanges(_:)`).
    var rowObserver: ObserverBox?

    /// Settings of the SQLite library itself, made once before its first use: without
    /// memory statistics (nothing reads them), SQLite's allocations take no global lock,
    /// which every statement of the writer did several times.
    private static let libraryConfigured: Void = { _ = sb_sqlite3_disable_memory_statistics() }()

    /// Opens (creating when `readOnly` is false) the database file.
    public init(path: String, readOnly: Bool = false) throws {
        _ = Self.libraryConfigured
        if !readOnly { Self.makePrivate(path) }
        var db: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message, context: "opening \(path)")
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Self.busyTimeout)
    }

    /// Database files hold password hashes and messages: a new one is created 0600 (and
    /// SQLite gives its WAL, shared-memory and journal files the mode of the database),
    /// and one made before, with its WAL and shared-memory files, is narrowed to 0600.
    /// Whatever cannot be narrowed (a file of another user) is left to the data folder's
    /// own mode, which the server checks at start.
    static func makePrivate(_ path: String) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { Glibc.close(fd) }
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            var status = stat()
            if stat(file, &status) == 0, status.st_mode & 0o077 != 0 { _ = chmod(file, 0o600) }
        }
    }

    private var isClosed = false

    deinit { close() }

    /// Closes the connection now rather than when it goes away; call it only once the
    /// thread that owns it is done with it. Nothing may use it afterwards.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Throws a `SQLiteError` unless `code` is one of `accepted`.
    @discardableResult
    func check(_ code: Int32, _ context: @autoclosure () -> String) throws -> Int32 {
        guard code == SQLITE_OK else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(handle),
                message: String(cString: sqlite3_errmsg(handle)), context: context())
        }
        return code
    }

    /// Runs one or more statements without parameters (schema, pragmas).
    public func executeScript(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: message, context: String(sql.prefix(80)))
        }
    }

    /// The cached prepared statement for `sql`, reset and with `values` bound.
    func prepare(_ sql: String, _ values: [any SQLBindable]) throws -> SQLiteStatement {
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try SQLiteStatement(connection: self, sql: SQLiteDialect.translate(sql))
            statements[sql] = statement
        }
        try statement.bind(values)
        return statement
    }

    /// Runs a statement that returns no rows; returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, _ values: any SQLBindable...) throws -> Int {
        try execute(sql, values)
    }

    /// Runs a statement that returns no rows; returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, _ values: [any SQLBindable]) throws -> Int {
        let statement = try prepare(sql, values)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Calls `row` for each result row.
    public func query(_ sql: String, _ values: [any SQLBindable], row: (SQLiteRow) throws -> Void) throws {
        let statement = try prepare(sql, values)
        defer { statement.reset() }
        while try statement.step() {
            try row(SQLiteRow(statement: statement.handle))
        }
    }

    /// The rows of a query, each mapped by `transform`.
    public func rows<T>(_ sql: String, _ values: any SQLBindable..., as transform: (SQLiteRow) throws -> T)
        throws -> [T]
    {
        var result: [T] = []
        try query(sql, values) { result.append(try transform($0)) }
        return result
    }

    /// The first row of a query mapped by `transform`, or nil.
    public func first<T>(_ sql: String, _ values: any SQLBindable..., as transform: (SQLiteRow) throws -> T)
        throws -> T?
    {
        let statement = try prepare(sql, values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try transform(SQLiteRow(statement: statement.handle))
    }

    /// The integer in the first column of the first row, or nil.
    public func scalar(_ sql: String, _ values: any SQLBindable...) throws -> Int64? {
        let statement = try prepare(sql, values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let row = SQLiteRow(statement: statement.handle)
        return row.isNull(0) ? nil : row.int(0)
    }

    /// The rowid of the last insert on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How long a statement waits for another connection's lock before SQLITE_BUSY.
    static let busyTimeout: Int32 = 5000

    /// Runs `body` with no waiting for other connections' locks (SQLITE_BUSY at once).
    func withoutWaiting<T>(_ body: () throws -> T) rethrows -> T {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Self.busyTimeout) }
        return try body()
    }

    /// Rows inserted, updated or deleted on this connection since it opened (triggers and
    /// foreign key actions included).
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Whether a transaction is open (SQLite ends one by itself after some errors).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` inside `SAVEPOINT`: its changes are kept if it returns and undone if it
    /// throws, without disturbing an enclosing transaction.
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT job")
        do {
            let result = try body()
            try execute("RELEASE job")
            return result
        } catch {
            _ = try? execute("ROLLBACK TO job")
            _ = try? execute("RELEASE job")
            rowObserver?.observer.changesUndone()
            throw error
        }
    }

    /// Runs `body`'s reads in one read transaction, so they all see the same commits
    /// (each statement outside one sees the newest commit when it starts).
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        defer { _ = try? execute("COMMIT") }
        return try body()
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` … `COMMIT`), rolled back on error.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }
}
