import IMStore
import PostgresTestSupport
import Testing

@Suite struct PostgresTransactionTests {
    @Test func aTransactionCommitsWhenItsBodyReturnsAndRollsBackWhenItThrows() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try $0.executeScript("CREATE TABLE items (name text PRIMARY KEY)") }
            try await pool.transaction { connection in
                try connection.execute("INSERT INTO items VALUES ($1)", "kept")
                try connection.execute("INSERT INTO items VALUES ($1)", "also kept")
            }
            let failed = await outcome {
                try await pool.transaction { connection in
                    try connection.execute("INSERT INTO items VALUES ($1)", "undone")
                    throw Deliberate(index: 1)
                }
            }
            #expect(failed.failure as? Deliberate == Deliberate(index: 1))
            let names = try await pool.withConnection { try $0.rows("SELECT name FROM items ORDER BY name") { try $0.text(0) } }
            #expect(names == ["also kept", "kept"])
        }
    }

    @Test func aCaughtStatementFailureStillFailsTheCommitAndUndoesEverything() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try $0.executeScript("CREATE TABLE items (name text PRIMARY KEY)") }
            let result = await outcome {
                try await pool.transaction { connection in
                    try connection.execute("INSERT INTO items VALUES ($1)", "first")
                    _ = try? connection.execute("INSERT INTO items VALUES ($1)", "first")  // fails, error dropped
                }
            }
            let error = try #require(result.failure as? PostgresError)
            #expect(error.context == "COMMIT")
            #expect(error.message.contains("rolled back"))
            #expect(try await pool.withConnection { try $0.first("SELECT count(*) FROM items") { try $0.int(0) } } == 0)
        }
    }

    @Test func aSavepointUndoesOnlyItsOwnPartAndTheTransactionGoesOn() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try $0.executeScript("CREATE TABLE items (name text PRIMARY KEY)") }
            let duplicateRefused = try await pool.transaction { connection -> Bool in
                try connection.execute("INSERT INTO items VALUES ($1)", "first")
                let refused: Bool
                do {
                    try connection.savepoint {
                        try connection.execute("INSERT INTO items VALUES ($1)", "inside")
                        try connection.execute("INSERT INTO items VALUES ($1)", "first")
                    }
                    refused = false
                } catch let error as PostgresError where error.kind == .uniqueViolation {
                    refused = true
                }
                try connection.savepoint { try connection.execute("INSERT INTO items VALUES ($1)", "second") }
                return refused
            }
            #expect(duplicateRefused)
            let names = try await pool.withConnection { try $0.rows("SELECT name FROM items ORDER BY name") { try $0.text(0) } }
            #expect(names == ["first", "second"])
        }
    }

    @Test func aTransactionInsideATransactionIsRefused() async throws {
        try await withPostgresPool { pool, _ in
            let result = await outcome {
                try await pool.transaction { connection in try connection.transaction { 1 } }
            }
            let error = try #require(result.failure as? PostgresError)
            #expect(error.message.contains("already open"))
        }
    }

    @Test func aReadOnlyTransactionCannotWrite() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try $0.executeScript("CREATE TABLE items (name text PRIMARY KEY)") }
            let result = await outcome {
                try await pool.withConnection { connection in
                    try connection.transaction(readOnly: true) { try connection.execute("INSERT INTO items VALUES ('x')") }
                }
            }
            #expect((result.failure as? PostgresError)?.sqlState == "25006")
        }
    }

    @Test func aJobThatLeavesATransactionOpenDoesNotHandItToTheNext() async throws {
        try await withPostgresPool(maxConnections: 1) { pool, _ in
            try await pool.withConnection { try $0.executeScript("CREATE TABLE items (name text PRIMARY KEY)") }
            try await pool.withConnection { connection in
                try connection.executeScript("BEGIN")
                try connection.execute("INSERT INTO items VALUES ($1)", "left open")
            }
            // Inside the open transaction its own row would be visible.
            let count = try await pool.withConnection { try $0.first("SELECT count(*) FROM items") { try $0.int(0) } }
            #expect(count == 0)
            #expect(pool.statistics.connects == 1)  // rolled back, not reconnected
        }
    }
}
