import IMProtocol

/// A value bound to a statement parameter, on either engine. SQL text is never built from
/// values: every value travels as one of these, as SQLite's value (`sqlValue`) or in
/// PostgreSQL's binary format (`postgresValue`).
public protocol StoreBindable {
    var sqlValue: SQLValue { get }
    var postgresValue: PostgresValue { get }
}

/// A session of either engine, as the store's shared body (`Body/`) uses it. Statements
/// are written once, with SQLite's placeholders (`?1`, `?2`, … or `?`), and each engine
/// translates a statement once, when it prepares it: PostgreSQL reads the placeholders
/// as `$1`, `$2`, … (`PostgresDialect`), SQLite drops `FOR UPDATE` (its one writer
/// already serialises every write) and reads `COLLATE "C"` as its byte order
/// (`SQLiteDialect`). Statements are cached by the text as written, so a statement
/// run again costs no translation.
public protocol StoreConnection: AnyObject {
    associatedtype Row: StoreRow

    /// Runs a statement; returns the number of rows it changed.
    @discardableResult func execute(_ sql: String, _ values: any StoreBindable...) throws -> Int
    /// Runs a statement; returns the number of rows it changed.
    @discardableResult func execute(_ sql: String, _ values: [any StoreBindable]) throws -> Int
    /// The rows of a query, each mapped by `transform`.
    func rows<T>(_ sql: String, _ values: any StoreBindable..., as transform: (Row) throws -> T) throws -> [T]
    /// The first row of a query mapped by `transform`, or nil.
    func first<T>(_ sql: String, _ values: any StoreBindable..., as transform: (Row) throws -> T) throws -> T?
    /// Runs `body`'s reads in one read-only transaction, so they all see the same commits.
    func snapshot<T>(_ body: () throws -> T) throws -> T
}

/// One result row of either engine. SQLite's getters read NULL as 0 or "" and never
/// throw; PostgreSQL's throw for a NULL where a value was expected.
public protocol StoreRow {
    func isNull(_ column: Int) -> Bool
    func int(_ column: Int) throws -> Int64
    func optionalInt(_ column: Int) throws -> Int64?
    func bool(_ column: Int) throws -> Bool
    func double(_ column: Int) throws -> Double
    func text(_ column: Int) throws -> String
    func optionalText(_ column: Int) throws -> String?
    func bytes(_ column: Int) throws -> [UInt8]
}

extension StoreRow {
    /// A timestamp stored as milliseconds since 1970.
    func time(_ column: Int) throws -> Timestamp { Timestamp(milliseconds: try int(column)) }

    /// A timestamp stored as milliseconds since 1970, nil for NULL.
    func optionalTime(_ column: Int) throws -> Timestamp? { try optionalInt(column).map { Timestamp(milliseconds: $0) } }
}
