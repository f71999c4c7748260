import Foundation
import IMStore
import Testing

/// A one-table schema for exercising the SQLite layer on its own.
let itemsSchema = [
    Migration(version: 1, name: "items", sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, value);")
]

/// SQLite's result code for a parameter index out of range (`SQLITE_RANGE`).
let sqliteRange: Int32 = 25

/// Opens a database on `directory/test.sqlite`.
func openDatabase(
    _ directory: TemporaryDirectory, migrations: [Migration] = itemsSchema,
    beforeCommit: @escaping @Sendable (SQLiteConnection) throws -> Void = { _ in }
) throws -> SQLiteDatabase {
    try SQLiteDatabase(
        configuration: SQLiteDatabase.Configuration(
            path: directory.file("test.sqlite"), readers: 2, synchronous: .normal),
        migrations: migrations, beforeCommit: beforeCommit)
}

/// Runs `body` with a fresh database; closes and removes it after.
func withDatabase<T>(
    migrations: [Migration] = itemsSchema,
    beforeCommit: @escaping @Sendable (SQLiteConnection) throws -> Void = { _ in },
    _ body: (SQLiteDatabase) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try await closing(try openDatabase(directory, migrations: migrations, beforeCommit: beforeCommit), body)
}

/// Reads column `column` of `row` as the `SQLValue` kind SQLite reports for it.
func sqlValue(_ row: SQLiteRow, type: String, column: Int32) -> SQLValue {
    switch type {
    case "integer": .integer(row.int(column))
    case "real": .real(row.double(column))
    case "text": .text(row.text(column))
    case "blob": .blob(row.blob(column))
    default: .null
    }
}

extension SQLiteDatabase {
    /// Inserts one value into `items`; returns its row id.
    func insertItem(_ value: SQLValue) async throws -> Int64 {
        try await write { context in
            try context.connection.execute("INSERT INTO items (value) VALUES (?)", value)
            return context.connection.lastInsertRowID
        }
    }

    /// The stored value of one item and SQLite's type name for it.
    func item(_ id: Int64) async throws -> (type: String, value: SQLValue)? {
        try await read { connection in
            try connection.first("SELECT typeof(value), value FROM items WHERE id = ?", id) { row in
                (type: row.text(0), value: sqlValue(row, type: row.text(0), column: 1))
            }
        }
    }

    /// Every item's value, by id.
    func allItems() async throws -> [Int64: SQLValue] {
        try await read { connection in
            let rows = try connection.rows("SELECT id, typeof(value), value FROM items") { row in
                (row.int(0), sqlValue(row, type: row.text(1), column: 2))
            }
            return Dictionary(uniqueKeysWithValues: rows)
        }
    }
}

@Suite struct SQLiteValueTests {
    static let values: [(SQLValue, String)] = [
        (.null, "null"),
        (.integer(0), "integer"),
        (.integer(Int64.max), "integer"),
        (.integer(Int64.min), "integer"),
        (.real(3.25), "real"),
        (.real(-1.5e300), "real"),
        (.text(""), "text"),
        (.text("it's a \"quoted\" value'); DROP TABLE items; --"), "text"),
        (.text("héllo wörld, 你好, Привет, 🎉👩‍👩‍👧, \u{200B}zero-width, tab\tand\nnewline"), "text"),
        (.blob([]), "blob"),
        (.blob([0, 1, 2, 0, 255, 0]), "blob"),
        (.blob([UInt8](repeating: 0xAB, count: 100_000)), "blob"),
    ]

    @Test func everyValueKindRoundTripsWithItsSQLiteType() async throws {
        try await withDatabase { database in
            for (value, type) in Self.values {
                let id = try await database.insertItem(value)
                let stored = try #require(try await database.item(id))
                #expect(stored.type == type, "\(value) stored as \(stored.type)")
                #expect(stored.value == value)
            }
        }
    }

    @Test func swiftTypesBindAsTheirSQLKinds() async throws {
        try await withDatabase { database in
            let data = Data([9, 8, 7])
            let ids = try await database.write { context in
                let connection = context.connection
                let inserts: [any SQLBindable] = [
                    42, Int64(-7), true, false, 2.5, "text", [UInt8]([1, 2]), data, String?.none, Int?.some(5),
                ]
                var ids: [Int64] = []
                for value in inserts {
                    try connection.execute("INSERT INTO items (value) VALUES (?)", [value])
                    ids.append(connection.lastInsertRowID)
                }
                return ids
            }
            let items = try await database.allItems()
            let expected: [SQLValue] = [
                .integer(42), .integer(-7), .integer(1), .integer(0), .real(2.5), .text("text"), .blob([1, 2]),
                .blob([9, 8, 7]), .null, .integer(5),
            ]
            #expect(ids.map { items[$0] } == expected)
        }
    }

    @Test func aSingleByteArrayArgumentBindsAsOneBlob() async throws {
        try await withDatabase { database in
            let bytes: [UInt8] = [1, 2, 3]
            let id = try await database.write { context in
                try context.connection.execute("INSERT INTO items (value) VALUES (?)", bytes)
                return context.connection.lastInsertRowID
            }
            let stored = try #require(try await database.item(id))
            #expect(stored.type == "blob")
            #expect(stored.value == .blob(bytes))
        }
    }

    @Test func aStatementWithTooFewOrTooManyValuesThrowsAndChangesNothing() async throws {
        try await withDatabase { database in
            for values in [[], [SQLValue.integer(1), .integer(2)]] {
                let error = await #expect(throws: SQLiteError.self) {
                    try await database.write { context in
                        try context.connection.execute("INSERT INTO items (value) VALUES (?)", values)
                    }
                }
                #expect(error?.code == sqliteRange)
                #expect(error?.message.contains("expected 1 values, got \(values.count)") == true)
            }
            let readError = await #expect(throws: SQLiteError.self) {
                try await database.read { connection in
                    try connection.scalar("SELECT count(*) FROM items WHERE id = ? AND value = ?", 1)
                }
            }
            #expect(readError?.code == sqliteRange)
            #expect(try await database.allItems().isEmpty)
            // The cached statement is still usable with the right number of values.
            let id = try await database.insertItem(.integer(7))
            #expect(try await database.item(id)?.value == .integer(7))
        }
    }

    @Test func aFailingStatementReportsSQLitesMessageAndTheStatement() async throws {
        try await withDatabase { database in
            let error = await #expect(throws: SQLiteError.self) {
                try await database.read { connection in
                    try connection.scalar("SELECT value FROM nowhere")
                }
            }
            #expect(error?.message.contains("no such table") == true, "\(String(describing: error))")
            #expect(error?.description.contains("nowhere") == true)
        }
    }
}
