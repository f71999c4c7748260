import IMProtocol

/// The rows of one query, read by index; valid as long as it is kept (it owns the result).
public struct PostgresRows: RandomAccessCollection, Sendable {
    let result: PostgresResult
    let context: String

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of rows.
    public var endIndex: Int { result.rowCount }
    /// The row at `position`.
    public subscript(position: Int) -> PostgresRow { PostgresRow(rows: self, index: position) }

    /// The rows an `INSERT`, `UPDATE` or `DELETE` changed.
    public var affectedRows: Int { result.affectedRows }

    /// The column names, in order.
    public var columns: [String] { (0..<result.columnCount).map(result.columnName) }
}

/// One result row. Getters throw `PostgresError` (`.invalidValue`) for a NULL where a
/// value was expected or a column of another type, naming the column.
public struct PostgresRow: Sendable {
    let rows: PostgresRows
    let index: Int

    /// The number of columns.
    public var columnCount: Int { rows.result.columnCount }

    /// True when the cell is SQL NULL.
    public func isNull(_ column: Int) -> Bool { rows.result.isNull(row: index, column: column) }

    /// The cell as a value (`.null` for NULL).
    public func value(_ column: Int) throws -> PostgresValue {
        let result = rows.result
        guard column >= 0, column < result.columnCount else {
            throw failure(column, "there are only \(result.columnCount) columns")
        }
        if result.isNull(row: index, column: column) { return .null }
        let type = result.columnType(column)
        let decoded: PostgresValue?
        do {
            decoded = try result.withBytes(row: index, column: column) { try PostgresValue.decode(type: type, $0) }
        } catch let error as BinaryReader.Failure {
            throw failure(column, "cannot be read: \(error.reason)")
        }
        guard let decoded else {
            throw failure(column, "has type OID \(type), which this program does not read; cast it in the SQL")
        }
        return decoded
    }

    /// An integer cell (`int2`, `int4`, `int8`, `oid`, `xid8`).
    public func int(_ column: Int) throws -> Int64 {
        guard case .integer(let value) = try value(column) else { throw mismatch(column, "an integer") }
        return value
    }

    /// An integer cell, nil for NULL.
    public func optionalInt(_ column: Int) throws -> Int64? { isNull(column) ? nil : try int(column) }

    /// A floating-point (or integer) cell.
    public func double(_ column: Int) throws -> Double {
        switch try value(column) {
        case .double(let value): return value
        case .integer(let value): return Double(value)
        default: throw mismatch(column, "a number")
        }
    }

    /// A boolean cell.
    public func bool(_ column: Int) throws -> Bool {
        guard case .bool(let value) = try value(column) else { throw mismatch(column, "a boolean") }
        return value
    }

    /// A text cell (`text`, `varchar`, `char`, `name`, `json`, `jsonb`).
    public func text(_ column: Int) throws -> String {
        guard case .text(let value) = try value(column) else { throw mismatch(column, "text") }
        return value
    }

    /// A text cell, nil for NULL.
    public func optionalText(_ column: Int) throws -> String? { isNull(column) ? nil : try text(column) }

    /// A `bytea` cell.
    public func bytes(_ column: Int) throws -> [UInt8] {
        guard case .bytes(let value) = try value(column) else { throw mismatch(column, "bytea") }
        return value
    }

    /// A `bytea` cell, nil for NULL.
    public func optionalBytes(_ column: Int) throws -> [UInt8]? { isNull(column) ? nil : try bytes(column) }

    /// A `timestamptz` (or `timestamp`, read as UTC) cell.
    public func timestamp(_ column: Int) throws -> Timestamp {
        guard case .timestamp(let value) = try value(column) else { throw mismatch(column, "a timestamp") }
        return value
    }

    /// A timestamp cell, nil for NULL.
    public func optionalTimestamp(_ column: Int) throws -> Timestamp? { isNull(column) ? nil : try timestamp(column) }

    private func mismatch(_ column: Int, _ expected: String) -> PostgresError {
        isNull(column)
            ? failure(column, "is NULL, expected \(expected)")
            : failure(column, "has type OID \(rows.result.columnType(column)), expected \(expected)")
    }

    private func failure(_ column: Int, _ problem: String) -> PostgresError {
        let name = column >= 0 && column < columnCount ? " (\(rows.result.columnName(column)))" : ""
        return PostgresError(
            kind: .invalidValue, message: "row \(index) column \(column)\(name) \(problem)", context: rows.context)
    }
}

extension PostgresRow: StoreRow {}
