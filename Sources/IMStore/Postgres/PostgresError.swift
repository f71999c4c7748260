/// A failed PostgreSQL call: what kind of failure, the server's SQLSTATE and message, and
/// what was being done.
///
/// The pool hands callers a `StoreError` where the store has a case for the failure
/// (`storeError`); everything else stays a `PostgresError`, which says whether running
/// the transaction again can succeed (`isRetryable`) and whether the database is out of
/// reach (`isUnavailable`), the way `SQLiteError.isStorageFailure` does for SQLite.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// How callers should react, from the SQLSTATE or from where the failure happened.
    public enum Kind: Sendable, Equatable {
        /// 23505: a UNIQUE or PRIMARY KEY constraint.
        case uniqueViolation
        /// 23503: a row refers to one that is not there.
        case foreignKeyViolation
        /// 23502, 23514, 23P01: NOT NULL, CHECK or exclusion constraints.
        case constraintViolation
        /// 40001: a serializable transaction lost a conflict; it was rolled back.
        case serializationFailure
        /// 40P01: the transaction was chosen to break a deadlock; it was rolled back.
        case deadlock
        /// 57014: the command was cancelled (by its task, or `statement_timeout`).
        case queryCanceled
        /// 55P03: a lock was not granted within `lock_timeout`.
        case lockTimeout
        /// The server could not be reached or refused the connection.
        case connectionFailed
        /// The connection broke while in use: the outcome of a COMMIT in flight is unknown.
        case connectionLost
        /// No pooled connection became free within the pool's timeout.
        case poolTimeout
        /// The pool's wait queue was full: the request was turned away at once.
        case poolOverloaded
        /// A value could not be sent or read (a type the decoder does not know, a NULL
        /// where a value was expected, a number out of range).
        case invalidValue
        /// Any other error the server reported.
        case server
    }

    /// How to react.
    public var kind: Kind
    /// The five-character SQLSTATE, or nil when the server gave none (libpq's own errors).
    public var sqlState: String?
    /// The server's (or libpq's) primary message.
    public var message: String
    /// The server's detail line (for a unique violation: the key and its value).
    public var detail: String?
    /// The server's hint, when it gave one.
    public var hint: String?
    /// The violated constraint, for constraint errors.
    public var constraint: String?
    /// The table of a constraint error.
    public var table: String?
    /// The statement or operation, for logs.
    public var context: String

    /// An error classified by its SQLSTATE.
    public init(sqlState: String, message: String, context: String) {
        self.init(kind: Self.kind(of: sqlState), message: message, context: context)
        self.sqlState = sqlState
    }

    /// An error of a known kind without a SQLSTATE.
    public init(kind: Kind, message: String, context: String) {
        self.kind = kind
        self.message = message
        self.context = context
    }

    /// SQLSTATE, message, detail and context, for logs.
    public var description: String {
        var text = "PostgreSQL error \(sqlState ?? "(no SQLSTATE)") (\(message)"
        if let detail { text += "; \(detail)" }
        if let hint { text += "; hint: \(hint)" }
        return text + ") in \(context)"
    }

    /// True when the transaction was rolled back by the server and running it again from
    /// the start can succeed.
    public var isRetryable: Bool { kind == .serializationFailure || kind == .deadlock }

    /// True when the database cannot be used right now (down, unreachable, restarting,
    /// out of connections or disk, or the pool is saturated): the caller should answer
    /// 503 and try later.
    public var isUnavailable: Bool {
        switch kind {
        case .connectionFailed, .connectionLost, .poolTimeout, .poolOverloaded: return true
        default:
            // Class 53: insufficient resources (disk full, out of memory, too many
            // connections); 57P0x: the server is shutting down or starting.
            return sqlState?.hasPrefix("53") == true || sqlState?.hasPrefix("57P") == true
        }
    }

    /// The store's error for this failure, when the store has one.
    public var storeError: StoreError? {
        switch kind {
        case .uniqueViolation: .conflict(description)
        case .foreignKeyViolation: .invalidReference(description)
        default: nil
        }
    }

    /// The kind a SQLSTATE stands for.
    static func kind(of sqlState: String) -> Kind {
        switch sqlState {
        case "23505": .uniqueViolation
        case "23503": .foreignKeyViolation
        case "23502", "23514", "23P01": .constraintViolation
        case "40001": .serializationFailure
        case "40P01": .deadlock
        case "57014": .queryCanceled
        case "55P03": .lockTimeout
        // 57P01 admin_shutdown (pg_terminate_backend), 57P02 crash_shutdown: the server
        // closes the connection after saying so. (Class 08 is not mapped here: 08P01, a
        // parameter count that does not match, leaves the connection fine; a connection
        // that did break is found by `check`.)
        case "57P01", "57P02": .connectionLost
        default: .server
        }
    }
}

extension Error {
    /// The error a store caller should see: a `PostgresError` the store has a case for
    /// becomes that `StoreError`; everything else is passed on.
    var mappedForStore: any Error {
        (self as? PostgresError)?.storeError ?? self
    }
}
