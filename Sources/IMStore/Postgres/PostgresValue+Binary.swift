import IMProtocol

// PostgreSQL's binary wire format: big-endian integers and IEEE floats, text as UTF-8,
// timestamps as microseconds since 2000-01-01 UTC (`integer_datetimes`, the only format
// since PostgreSQL 10), one-dimensional arrays with a small header.
//
// Binary rather than text both ways: bytes travel as they are (text `bytea` doubles
// them as hex and must be parsed), numbers need no printing or parsing and round-trip
// exactly, and every parameter carries its type, so nothing depends on the server's
// guess. The price is that a result column of a type this file does not read is an
// error that names it (cast it in SQL: `count(*)` is already `int8`, `sum()` is
// `numeric` and wants `::int8`).

/// Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's timestamp origin.
private let postgresEpochMicroseconds: Int64 = 946_684_800_000_000

extension PostgresValue {
    /// The type OID sent with the value; 0 (let the server infer) for NULL, which has no
    /// bytes to misread.
    var typeOID: UInt32 {
        switch self {
        case .null: 0
        case .bool: PostgresType.bool
        case .integer: PostgresType.int8
        case .double: PostgresType.float8
        case .text: PostgresType.text
        case .bytes: PostgresType.bytea
        case .timestamp: PostgresType.timestamptz
        case .integerArray: PostgresType.int8Array
        case .textArray: PostgresType.textArray
        }
    }

    /// Appends the value's binary form to `buffer`; false for NULL, which has none.
    func encode(into buffer: inout [UInt8]) throws -> Bool {
        switch self {
        case .null: return false
        case .bool(let value): buffer.append(value ? 1 : 0)
        case .integer(let value): buffer.appendBigEndian(value)
        case .double(let value): buffer.appendBigEndian(value.bitPattern)
        case .text(let value): buffer.append(contentsOf: value.utf8)
        case .bytes(let value): buffer.append(contentsOf: value)
        case .timestamp(let value):
            let (micros, overflow) = value.milliseconds.multipliedReportingOverflow(by: 1000)
            // PostgreSQL's own range ends in the year 294276, well inside Int64.
            guard !overflow, micros < Int64.max / 2, micros > Int64.min / 2 else {
                throw BinaryReader.Failure(reason: "timestamp \(value.milliseconds) ms is outside PostgreSQL's range")
            }
            buffer.appendBigEndian(micros - postgresEpochMicroseconds)
        case .integerArray(let values):
            Self.appendArrayHeader(count: values.count, element: PostgresType.int8, to: &buffer)
            for value in values {
                buffer.appendBigEndian(Int32(8))
                buffer.appendBigEndian(value)
            }
        case .textArray(let values):
            Self.appendArrayHeader(count: values.count, element: PostgresType.text, to: &buffer)
            for value in values {
                buffer.appendBigEndian(Int32(value.utf8.count))
                buffer.append(contentsOf: value.utf8)
            }
        }
        return true
    }

    private static func appendArrayHeader(count: Int, element: UInt32, to buffer: inout [UInt8]) {
        // An empty array has no dimensions; otherwise one, with lower bound 1.
        buffer.appendBigEndian(Int32(count == 0 ? 0 : 1))
        buffer.appendBigEndian(Int32(0))  // no NULL elements
        buffer.appendBigEndian(element)
        if count > 0 {
            buffer.appendBigEndian(Int32(count))
            buffer.appendBigEndian(Int32(1))
        }
    }

    /// Reads a non-NULL cell of type `type`; nil when this coder does not know the type.
    static func decode(type: UInt32, _ bytes: UnsafeRawBufferPointer) throws -> PostgresValue? {
        var reader = BinaryReader(bytes)
        switch type {
        case PostgresType.bool: return .bool(try reader.fixed(UInt8.self) != 0)
        case PostgresType.int2: return .integer(Int64(try reader.fixed(Int16.self)))
        case PostgresType.int4: return .integer(Int64(try reader.fixed(Int32.self)))
        case PostgresType.oid: return .integer(Int64(try reader.fixed(UInt32.self)))
        case PostgresType.int8: return .integer(try reader.fixed(Int64.self))
        case PostgresType.xid8:
            let value = try reader.fixed(UInt64.self)
            guard value <= UInt64(Int64.max) else { throw BinaryReader.Failure(reason: "xid8 \(value) exceeds Int64") }
            return .integer(Int64(value))
        case PostgresType.float4: return .double(Double(Float(bitPattern: try reader.fixed(UInt32.self))))
        case PostgresType.float8: return .double(Double(bitPattern: try reader.fixed(UInt64.self)))
        case PostgresType.bytea: return .bytes(reader.rest())
        case PostgresType.jsonb:
            // A version byte (1) before the JSON text.
            guard try reader.fixed(UInt8.self) == 1 else { throw BinaryReader.Failure(reason: "unknown jsonb version") }
            return .text(String(decoding: reader.rest(), as: UTF8.self))
        case PostgresType.timestamptz, PostgresType.timestamp:
            let micros = try reader.fixed(Int64.self)
            guard micros != .max, micros != .min else { throw BinaryReader.Failure(reason: "an infinite timestamp") }
            // Floor division: a time before 1970 rounds down too.
            let since1970 = micros + postgresEpochMicroseconds
            let millis = since1970 >= 0 ? since1970 / 1000 : (since1970 - 999) / 1000
            return .timestamp(Timestamp(milliseconds: millis))
        case PostgresType.int8Array, PostgresType.int4Array:
            return .integerArray(try reader.array { element, bytes in
                var cell = BinaryReader(bytes)
                return element == PostgresType.int4 ? Int64(try cell.fixed(Int32.self)) : try cell.fixed(Int64.self)
            })
        case PostgresType.textArray, PostgresType.varcharArray:
            return .textArray(try reader.array { _, bytes in String(decoding: bytes, as: UTF8.self) })
        default:
            guard PostgresType.textual.contains(type) else { return nil }
            return .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}

/// Reads big-endian values from one cell.
struct BinaryReader {
    struct Failure: Error {
        var reason: String
    }

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func fixed<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else {
            throw Failure(reason: "\(bytes.count - offset) bytes left, \(size) needed")
        }
        defer { offset += size }
        return T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    func rest() -> [UInt8] { Array(bytes[offset...]) }

    /// A one-dimensional array without NULLs, each element read by `element`.
    mutating func array<T>(_ element: (UInt32, UnsafeRawBufferPointer) throws -> T) throws -> [T] {
        let dimensions = try fixed(Int32.self)
        _ = try fixed(Int32.self)  // has-NULL flag; a NULL element is refused below
        let elementType = try fixed(UInt32.self)
        guard dimensions != 0 else { return [] }
        guard dimensions == 1 else { throw Failure(reason: "a \(dimensions)-dimensional array") }
        let count = try fixed(Int32.self)
        _ = try fixed(Int32.self)  // lower bound
        guard count >= 0 else { throw Failure(reason: "a negative array length") }
        var values: [T] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count {
            let length = try fixed(Int32.self)
            guard length >= 0 else { throw Failure(reason: "a NULL array element") }
            guard offset + Int(length) <= bytes.count else { throw Failure(reason: "a truncated array") }
            let cell = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
            offset += Int(length)
            values.append(try element(elementType, cell))
        }
        return values
    }
}

extension [UInt8] {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
