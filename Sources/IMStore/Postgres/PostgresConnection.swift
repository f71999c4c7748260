import CPostgres
import Foundation

/// One PostgreSQL session: statements with bound parameters only (prepared once and
/// cached), transactions and savepoints.
///
/// Its calls block until the server answers, so it lives on a thread of its own (a pool
/// slot's or the listener's), never on Swift's cooperative pool, and one thread at a time
/// uses it; it is deliberately not `Sendable`. `PostgresPool` hands it to synchronous
/// closures on that thread.
public final class PostgresConnection: StoreConnection {
    let handle: PostgresConnectionHandle
    private var statements: PostgresStatementCache

    /// Connects and sets up the session; throws `PostgresError` (`.connectionFailed`).
    public init(configuration: PostgresConfiguration) throws {
        handle = try PostgresConnectionHandle(parameters: configuration.connectionParameters)
        statements = PostgresStatementCache(capacity: configuration.statementCacheCapacity)
        // The binary timestamp format read here is the integer one (PostgreSQL 10 and
        // later have no other).
        guard handle.parameterStatus("integer_datetimes") == "on" else {
            throw PostgresError(
                kind: .connectionFailed, message: "the server stores timestamps as floating point; PostgreSQL 10 or later is needed",
                context: "connecting to \(handle.target)")
        }
        for (name, value) in configuration.sessionSettings.sorted(by: { $0.key < $1.key }) {
            try execute("SELECT set_config($1, $2, false)", name, value)
        }
    }

    /// The server process of this session (for `pg_terminate_backend`, logs).
    public var backendPID: Int32 { handle.backendPID }

    /// `host:port/database`, for messages.
    public var target: String { handle.target }

    /// The server's version, e.g. `15.4 (Debian 15.4-1)`.
    public var serverVersion: String { handle.parameterStatus("server_version") ?? "unknown" }

    /// True when the session can take a new job: connected, outside a transaction, and
    /// not told anything while idle (which, for a session that does not listen, is the
    /// server's goodbye after `pg_terminate_backend` or a restart).
    var isReusable: Bool { handle.isConnected && handle.isIdle && handle.hasNothingPending }

    var isConnected: Bool { handle.isConnected }
    var isIdle: Bool { handle.isIdle }

    // MARK: Statements

    /// Runs a statement; returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ values: any PostgresBindable...) throws -> Int {
        try run(sql, values).affectedRows
    }

    /// Runs a statement; returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ values: [any PostgresBindable]) throws -> Int {
        try run(sql, values).affectedRows
    }

    /// The rows of a query.
    public func query(_ sql: String, _ values: any PostgresBindable...) throws -> PostgresRows {
        try query(sql, values)
    }

    /// The rows of a query.
    public func query(_ sql: String, _ values: [any PostgresBindable]) throws -> PostgresRows {
        PostgresRows(result: try run(sql, values), context: Self.context(sql))
    }

    /// The rows of a query, each mapped by `transform`.
    public func rows<T>(_ sql: String, _ values: any PostgresBindable..., as transform: (PostgresRow) throws -> T)
        throws -> [T]
    {
        try query(sql, values).map(transform)
    }

    /// The first row of a query mapped by `transform`, or nil when there is none.
    public func first<T>(_ sql: String, _ values: any PostgresBindable..., as transform: (PostgresRow) throws -> T)
        throws -> T?
    {
        try query(sql, values).first.map(transform)
    }

    /// Runs SQL without parameters, several statements allowed: schema scripts and
    /// transaction control, never anything built from values.
    public func executeScript(_ sql: String) throws {
        try handle.check(handle.exec(sql), Self.context(sql))
    }

    /// Sends a notification on `channel`, delivered to listeners when the current
    /// transaction commits (at once outside one). The payload is at most 7999 bytes.
    public func notify(channel: String, payload: String) throws {
        try execute("SELECT pg_notify($1, $2)", channel, payload)
    }

    /// Prepares (once per connection and parameter types) and runs `sql`.
    private func run(_ sql: String, _ values: [any PostgresBindable]) throws -> PostgresResult {
        let parameters = try PostgresParameters(values.map(\.postgresValue), context: Self.context(sql))
        guard statements.capacity > 0 else {
            return try handle.check(handle.execParams(PostgresDialect.translate(sql), parameters), Self.context(sql))
        }
        let key = PostgresStatementCache.Key(sql: sql, types: parameters.types)
        let name: String
        if let cached = statements.name(for: key) {
            name = cached
        } else {
            name = statements.newName()
            try handle.check(
                handle.prepare(name: name, sql: PostgresDialect.translate(sql), types: parameters.types), Self.context(sql))
            if let evicted = statements.insert(key, name: name) {
                // Names are generated here ("sb_<n>"), never taken from input.
                _ = try? executeScript("DEALLOCATE \(evicted)")
            }
        }
        do {
            return try handle.check(handle.execPrepared(name: name, parameters), Self.context(sql))
        } catch let error as PostgresError where error.sqlState == "26000" || error.sqlState == "0A000" {
            // The statement is gone (a pooler's DISCARD ALL) or its cached plan no longer
            // fits the table (a migration on another node): prepare it anew next time.
            statements.remove(key)
            throw error
        }
    }

    /// The statement as shown in error messages: whitespace collapsed, at most 160
    /// characters (SQL text only; values never appear in it).
    static func context(_ sql: String) -> String {
        let collapsed = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return collapsed.count <= 160 ? collapsed : collapsed.prefix(157) + "..."
    }
}
