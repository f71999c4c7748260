import Foundation

/// A value bound to a statement parameter. SQL text is never built from values: every
/// value travels as one of these.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// Values that bind as a SQLite statement parameter (every `StoreBindable`; each value
/// type says how it binds on both engines, its PostgreSQL side in `PostgresValue.swift`).
public typealias SQLBindable = StoreBindable

extension Int64 { public var sqlValue: SQLValue { .integer(self) } }
extension Int { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int32 { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Bool { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Double { public var sqlValue: SQLValue { .real(self) } }
extension String { public var sqlValue: SQLValue { .text(self) } }
extension Substring { public var sqlValue: SQLValue { .text(String(self)) } }
extension Array where Element == UInt8 { public var sqlValue: SQLValue { .blob(self) } }
extension Data { public var sqlValue: SQLValue { .blob([UInt8](self)) } }
extension Optional where Wrapped: StoreBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension SQLValue: StoreBindable {
    public var sqlValue: SQLValue { self }

    public var postgresValue: PostgresValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .double(value)
        case .text(let value): .text(value)
        case .blob(let value): .bytes(value)
        }
    }
}
