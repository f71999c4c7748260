import Foundation
import IMProtocol

/// A value bound to a statement parameter or read from a result. SQL text is never built
/// from values: every value travels as one of these, in PostgreSQL's binary format.
///
/// Each case is sent as one PostgreSQL type (`integer` as `int8`, `double` as `float8`,
/// `text` as `text`, `bytes` as `bytea`, `timestamp` as `timestamptz`, the arrays as
/// `int8[]` and `text[]`), so the server never guesses a parameter's type. Where a column
/// has another type, the SQL casts (`$1::jsonb`); comparisons and assignments between the
/// integer types need no cast.
public enum PostgresValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case text(String)
    case bytes([UInt8])
    /// Milliseconds since 1970 (a `timestamptz`; the server keeps microseconds, reads
    /// round down to the millisecond).
    case timestamp(Timestamp)
    /// For `= ANY($1)` and `unnest($1)`.
    case integerArray([Int64])
    case textArray([String])
}

/// Values that bind as a PostgreSQL statement parameter (every `StoreBindable`).
public typealias PostgresBindable = StoreBindable

extension PostgresValue: StoreBindable {
    public var postgresValue: PostgresValue { self }

    /// As SQLite binds it: a timestamp as its milliseconds, an array as JSON text (read
    /// with `json_each`).
    public var sqlValue: SQLValue {
        switch self {
        case .null: .null
        case .bool(let value): .integer(value ? 1 : 0)
        case .integer(let value): .integer(value)
        case .double(let value): .real(value)
        case .text(let value): .text(value)
        case .bytes(let value): .blob(value)
        case .timestamp(let value): .integer(value.milliseconds)
        case .integerArray(let values): .text("[" + values.map(String.init).joined(separator: ",") + "]")
        case .textArray(let values):
            .text(String(decoding: (try? JSONEncoder().encode(values)) ?? Data("[]".utf8), as: UTF8.self))
        }
    }
}
extension Bool: StoreBindable { public var postgresValue: PostgresValue { .bool(self) } }
extension Int64: StoreBindable { public var postgresValue: PostgresValue { .integer(self) } }
extension Int: StoreBindable { public var postgresValue: PostgresValue { .integer(Int64(self)) } }
extension Int32: StoreBindable { public var postgresValue: PostgresValue { .integer(Int64(self)) } }
extension Double: StoreBindable { public var postgresValue: PostgresValue { .double(self) } }
extension String: StoreBindable { public var postgresValue: PostgresValue { .text(self) } }
extension Substring: StoreBindable { public var postgresValue: PostgresValue { .text(String(self)) } }
extension Array: StoreBindable where Element == UInt8 { public var postgresValue: PostgresValue { .bytes(self) } }
extension Data: StoreBindable { public var postgresValue: PostgresValue { .bytes([UInt8](self)) } }
extension Timestamp: StoreBindable {
    public var postgresValue: PostgresValue { .timestamp(self) }
    public var sqlValue: SQLValue { .integer(milliseconds) }
}
extension Optional: StoreBindable where Wrapped: StoreBindable {
    public var postgresValue: PostgresValue { self?.postgresValue ?? .null }
}

/// The type OIDs the binary coder reads and writes (from `pg_type`; fixed since 8.x).
enum PostgresType {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let char: UInt32 = 18
    static let name: UInt32 = 19
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let oid: UInt32 = 26
    static let json: UInt32 = 114
    static let float4: UInt32 = 700
    static let float8: UInt32 = 701
    static let unknown: UInt32 = 705
    static let int4Array: UInt32 = 1007
    static let textArray: UInt32 = 1009
    static let varcharArray: UInt32 = 1015
    static let int8Array: UInt32 = 1016
    static let bpchar: UInt32 = 1042
    static let varchar: UInt32 = 1043
    static let timestamp: UInt32 = 1114
    static let timestamptz: UInt32 = 1184
    static let numeric: UInt32 = 1700
    static let jsonb: UInt32 = 3802
    static let xid8: UInt32 = 5069

    /// Types whose binary form is their text in UTF-8.
    static let textual: Set<UInt32> = [text, varchar, bpchar, name, json, unknown, char]
}
