import CSQLite

/// A prepared statement owned by one connection.
final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    let sql: String

    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        try connection.check(
            sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil),
            "preparing \(sql)")
        guard let statement else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement", context: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [any SQLBindable]) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "expected \(expected) values, got \(values.count)",
                context: sql)
        }
        for (offset, bindable) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch bindable.sqlValue {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let value): rc = sqlite3_bind_int64(handle, index, value)
            case .real(let value): rc = sqlite3_bind_double(handle, index, value)
            case .text(var value):
                // SQLite copies the bytes (SQLITE_TRANSIENT) and takes a length, so the
                // string's own UTF-8 storage is passed without a NUL-terminated copy.
                // An empty buffer may have no address, and a NULL pointer would bind NULL.
                rc = value.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { text in
                        guard let base = text.baseAddress else {
                            return "".withCString { sb_sqlite3_bind_text(handle, index, $0, 0) }
                        }
                        return sb_sqlite3_bind_text(handle, index, base, Int32(text.count))
                    }
                }
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes {
                    sb_sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count))
                }
            }
            try connection.check(rc, "binding parameter \(index) of \(sql)")
        }
    }

    /// Advances; true when a row is available.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        // SQLite undid what the statement changed before it failed.
        connection.rowObserver?.observer.changesUndone()
        try connection.check(rc, sql)
        return false
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}

/// One result row; valid only inside the callback that received it.
public struct SQLiteRow {
    let statement: OpaquePointer

    public func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    public func optionalInt(_ column: Int32) -> Int64? { isNull(column) ? nil : int(column) }

    public func bool(_ column: Int32) -> Bool { int(column) != 0 }

    public func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

    public func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    public func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// The shared body's getters (`StoreRow`), by `Int` column.
extension SQLiteRow: StoreRow {
    public func isNull(_ column: Int) -> Bool { isNull(Int32(column)) }
    public func int(_ column: Int) -> Int64 { int(Int32(column)) }
    public func optionalInt(_ column: Int) -> Int64? { optionalInt(Int32(column)) }
    public func bool(_ column: Int) -> Bool { bool(Int32(column)) }
    public func double(_ column: Int) -> Double { double(Int32(column)) }
    public func text(_ column: Int) -> String { text(Int32(column)) }
    public func optionalText(_ column: Int) -> String? { optionalText(Int32(column)) }
    public func bytes(_ column: Int) -> [UInt8] { blob(Int32(column)) }
}
