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

    @Test func hostileStringsAreStoredAndFoundAsTheyAre() async throws {
        let hostile = [
            "'; DROP TABLE names; --", "Robert'); DROP TABLE names;--", "' OR '1'='1", "$1", "$2::text",
            "\\", "\\x00", "E'\\n'", "%s%n", "\"quoted\"", "line\nbreak\r\n", "tab\there", "; COMMIT; BEGIN;",
            "\u{202E}reversed", "😀👍🏽", "", " ", "NULL", "null",
        ]
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { connection in
                try connection.executeScript("CREATE TABLE names (id serial PRIMARY KEY, name text NOT NULL)")
                for name in hostile {
                    try connection.execute("INSERT INTO names (name) VALUES ($1)", name)
                }
                for name in hostile {
                    let found = try connection.rows("SELECT name FROM names WHERE name = $1", name) { try $0.text(0) }
                    #expect(found == [name])
                }
                let all = try connection.rows("SELECT name FROM names WHERE name = ANY($1) ORDER BY id", PostgresValue.textArray(hostile)) { try $0.text(0) }
                #expect(all == hostile)
                #expect(try connection.first("SELECT count(*) FROM names") { try $0.int(0) } == Int64(hostile.count))
            }
        }
    }

    @Test func aNULCharacterIsRefusedNotTruncated() async throws {
        try await withPostgresPool { pool, _ in
            let result = await outcome {
                try await pool.withConnection { try $0.first("SELECT $1::text", "before\u{0}after") { try $0.text(0) } }
            }
            let error = try #require(result.failure as? PostgresError)
            #expect(error.sqlState == "22021")
            #expect(error.description.contains("SELECT $1::text"))
        }
    }

    @Test func cellsOfTheWrongTypeOrNULLAreErrorsThatNameTheColumn() async throws {
        try await withPostgresPool { pool, _ in
            let errors = try await pool.withConnection { connection -> [PostgresError] in
                var errors: [PostgresError] = []
                func attempt(_ body: () throws -> Void) {
                    do { try body() } catch let error as PostgresError { errors.append(error) } catch {}
                }
                let row = try #require(try connection.query("SELECT 1.5::numeric AS amount, NULL::int8 AS missing, 'x' AS word").first)
                attempt { _ = try row.value(0) }
                attempt { _ = try row.int(1) }
                attempt { _ = try row.int(2) }
                attempt { _ = try row.value(7) }
                #expect(try row.optionalInt(1) == nil)
                #expect(try row.text(2) == "x")
                return errors
            }
            #expect(errors.count == 4)
            #expect(errors.allSatisfy { $0.kind == .invalidValue })
            #expect(errors[0].message.contains("(amount)") && errors[0].message.contains("1700") && errors[0].message.contains("cast"))
            #expect(errors[1].message.contains("(missing) is NULL"))
            #expect(errors[2].message.contains("(word)") && errors[2].message.contains("expected an integer"))
            #expect(errors[3].message.contains("only 3 columns"))
        }
    }

    @Test func integerColumnsOfEverySizeReadAsInt64AndCountIsAnInteger() async throws {
        try await withPostgresPool { pool, _ in
            let row = try await pool.withConnection { connection in
                try connection.first(
                    "SELECT $1::int2, $2::int4, $3::int8, count(*), 7::oid, 1.25::float4, pg_current_xact_id()",
                    Int64(Int16.min), Int64(Int32.max), Int64.min
                ) { row in [try row.int(0), try row.int(1), try row.int(2), try row.int(3), try row.int(4), Int64(try row.double(5) * 100), try row.int(6)] }
            }
            let values = try #require(row)
            #expect(Array(values.prefix(6)) == [Int64(Int16.min), Int64(Int32.max), .min, 1, 7, 125])
            #expect(values[6] > 0)
        }
    }

    @Test func aMismatchedParameterCountIsAnErrorAndTheSessionGoesOn() async throws {
        try await withPostgresPool(maxConnections: 1) { pool, _ in
            let result = await outcome { try await pool.withConnection { try $0.execute("SELECT $1::int8 + $2::int8", 1) } }
            let error = try #require(result.failure as? PostgresError)
            #expect(error.kind == .server)
            #expect(error.sqlState == "08P01")
            #expect(try await pool.withConnection { try $0.first("SELECT $1::int8 + $2::int8", 1, 2) { try $0.int(0) } } == 3)
            #expect(pool.statistics.connects == 1)
        }
    }

    @Test func aTimestampOutsidePostgreSQLsRangeIsRefusedBeforeItIsSent() async throws {
        try await withPostgresPool { pool, _ in
            let result = await outcome {
                try await pool.withConnection { try $0.execute("SELECT $1::timestamptz", Timestamp(milliseconds: .max)) }
            }
            let error = try #require(result.failure as? PostgresError)
            #expect(error.kind == .invalidValue)
            #expect(error.sqlState == nil)
            #expect(error.message.contains("parameter $1"))
        }
    }

    @Test func preparedStatementsStayWithinTheCacheAndWithoutOne() async throws {
        for capacity in [0, 2] {
            try await withPostgresDatabase { database in
                var configuration = database.poolConfiguration(maxConnections: 1)
                configuration.connection.statementCacheCapacity = capacity
                let pool = PostgresPool(configuration: configuration)
                let sums = try await pool.withConnection { connection in
                    var sums: [Int64] = []
                    for round in 0..<3 {
                        for offset in 0..<5 {
                            // Five different statements, each run three times.
                            let sql = "SELECT $1::int8 + \(offset)"
                            sums.append(try connection.first(sql, Int64(round)) { try $0.int(0) } ?? -1)
                        }
                    }
                    return sums
                }
                let prepared = try await pool.withConnection { try $0.first("SELECT count(*) FROM pg_prepared_statements") { try $0.int(0) } }
                await pool.close()
                let expected: [Int64] = (0..<3).flatMap { round in (0..<5).map { Int64(round + $0) } }
                #expect(sums == expected)
                #expect(prepared == Int64(capacity), "capacity \(capacity)")
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
