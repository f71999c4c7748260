import Foundation
import IMProtocol
import IMStore
import PostgresTestSupport
import Testing

/// Values travel as bound parameters in binary form and come back exactly.
@Suite struct PostgresValueTests {
    @Test func everyValueTypeRoundTripsThroughATable() async throws {
        try await withPostgresPool { pool, _ in
            let values: [PostgresValue] = [
                .null, .bool(true), .bool(false), .integer(0), .integer(.max), .integer(.min), .integer(-1),
                .double(0), .double(-0.0), .double(3.141592653589793), .double(.greatestFiniteMagnitude),
                .double(.leastNonzeroMagnitude), .double(.infinity), .double(-.infinity),
                .text(""), .text("héllo 🌍 \u{7F}\u{1}"), .text(String(repeating: "x", count: 100_000)),
                .bytes([]), .bytes([0, 1, 2, 255, 0]), .bytes((0..<65_536).map { UInt8($0 % 256) }),
                .timestamp(Timestamp(milliseconds: 0)), .timestamp(Timestamp(milliseconds: 1_800_000_000_123)),
                .timestamp(Timestamp(milliseconds: -1)), .timestamp(Timestamp(milliseconds: -62_135_596_800_000)),
                .integerArray([]), .integerArray([1, -2, .max, .min]),
                .textArray([]), .textArray(["a", "", "ü'\"\\", "NULL"]),
            ]
            let back = try await pool.withConnection { connection in
                try connection.executeScript(
                    """
                    CREATE TABLE cells (
                        id serial PRIMARY KEY, b boolean, i bigint, d double precision, t text, y bytea,
                        s timestamptz, ia bigint[], ta text[])
                    """)
                var read: [PostgresValue] = []
                for value in values {
                    let column = Self.column(for: value)
                    let id = try connection.first("INSERT INTO cells (\(column)) VALUES ($1) RETURNING id", value) { try $0.int(0) }
                    read.append(try #require(try connection.first("SELECT \(column) FROM cells WHERE id = $1", id) { try $0.value(0) }))
                }
                return read
            }
            #expect(back.count == values.count)
            for (sent, received) in zip(values, back) {
                if case .double(let x) = sent, case .double(let y) = received {
                    #expect(x.bitPattern == y.bitPattern, "\(x) came back as \(y)")
                } else {
                    #expect(sent == received)
                }
            }
        }
    }

    /// The column of `cells` that stores a value of this kind.
    static func column(for value: PostgresValue) -> String {
        switch value {
        case .null, .text: "t"
        case .bool: "b"
        case .integer: "i"
        case .double: "d"
        case .bytes: "y"
        case .timestamp: "s"
        case .integerArray: "ia"
        case .textArray: "ta"
        }
    }
}
