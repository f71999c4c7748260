import CSQLite

/// A failed SQLite call: the result code, SQLite's message and what was being done.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary or extended result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, …).
    public var code: Int32
    public var message: String
    /// The statement or operation, for logs.
    public var context: String

    public var description: String { "SQLite error \(code) (\(message)) in \(context)" }

    /// True for a UNIQUE or PRIMARY KEY violation.
    public var isUniqueViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY are cast macros Swift
        // cannot import: SQLITE_CONSTRAINT | (8 << 8) and SQLITE_CONSTRAINT | (6 << 8).
        code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (6 << 8)
    }

    /// True when the disk is full or the database file cannot be written.
    public var isStorageFailure: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_FULL || primary == SQLITE_IOERR || primary == SQLITE_READONLY
            || primary == SQLITE_CANTOPEN || primary == SQLITE_CORRUPT
    }
}
