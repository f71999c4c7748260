import Foundation
import IMStore
import PostgresTestSupport
import Testing

/// Server errors keep their SQLSTATE and statement, and become the store's errors where
/// the store has one, as SQLite's do.
@Suite struct PostgresErrorTests {
    private static let schema = """
        CREATE TABLE users (id serial PRIMARY KEY, name text NOT NULL UNIQUE);
        CREATE TABLE posts (id serial PRIMARY KEY, author int NOT NULL REFERENCES users(id), body text NOT NULL);
        """

    @Test func aUniqueViolationIsAConflictNamingTheConstraintAndTheKey() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try $0.executeScript(Self.schema) }
            try await pool.withConnection { try $0.execute("INSERT INTO users (name) VALUES ($1)", "alice") }
            let result = await outcome { try await pool.withConnection { try $0.execute("INSERT INTO users (name) VALUES ($1)", "alice") } }
            guard case .conflict(let message) = try #require(result.failure as? StoreError) else {
                Issue.record("not a conflict: \(String(describing: result.failure))")
                return
            }
            #expect(message.contains("23505"))
            #expect(message.contains("users_name_key"))
            #expect(message.contains("(name)=(alice)"))
            #expect(message.contains("INSERT INTO users (name) VALUES ($1)"))
        }
    }

    @Test func theStoreCanTellConstraintsApartInsideItsClosure() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try $0.executeScript(Self.schema) }
            let taken = try await pool.withConnection { connection -> Bool in
                try connection.execute("INSERT INTO users (name) VALUES ($1)", "bob")
                do {
                    try connection.execute("INSERT INTO users (name) VALUES ($1)", "bob")
                    return false
                } catch let error as PostgresError where error.kind == .uniqueViolation {
                    return error.constraint == "users_name_key" && error.table == "users"
                }
            }
            #expect(taken)
        }
    }

    @Test func aMissingReferenceIsAnInvalidReference() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try $0.executeScript(Self.schema) }
            let result = await outcome {
                try await pool.withConnection { try $0.execute("INSERT INTO posts (author, body) VALUES ($1, $2)", 42, "hi") }
            }
            guard case .invalidReference(let message) = try #require(result.failure as? StoreError) else {
                Issue.record("not an invalid reference: \(String(describing: result.failure))")
                return
            }
            #expect(message.contains("23503") && message.contains("posts_author_fkey"))
        }
    }

    @Test func otherConstraintsAndBadSQLStayPostgresErrorsWithTheirSQLSTATE() async throws {
        try await withPostgresPool { pool, _ in
            try await pool.withConnection { try $0.executeScript(Self.schema) }
            let missing = await outcome { try await pool.withConnection { try $0.execute("INSERT INTO users (name) VALUES ($1)", String?.none) } }
            let notNull = try #require(missing.failure as? PostgresError)
            #expect(notNull.kind == .constraintViolation && notNull.sqlState == "23502")
            #expect(!notNull.isRetryable && !notNull.isUnavailable)

            let typo = await outcome { try await pool.withConnection { try $0.execute("SELEC 1") } }
            let syntax = try #require(typo.failure as? PostgresError)
            #expect(syntax.kind == .server && syntax.sqlState == "42601")
            #expect(syntax.description.contains("syntax error") && syntax.description.contains("in SELEC 1"))
        }
    }

    @Test func aBadPasswordOrPortIsAConnectionFailureThatHidesThePassword() async throws {
        try await withPostgresDatabase { database in
            let wrongPassword = "postgresql://\(database.cluster.user):not-the-password-x7@127.0.0.1:\(database.cluster.port)/\(database.name)"
            let closedPort = "postgresql://\(database.cluster.user):secret-x7@127.0.0.1:1/\(database.name)"
            for url in [wrongPassword, closedPort] {
                let pool = PostgresPool(configuration: PostgresPool.Configuration(connection: PostgresConfiguration(url: url, connectTimeout: 5)))
                let result = await outcome { try await pool.withConnection { _ in 1 } }
                await pool.close()
                let error = try #require(result.failure as? PostgresError)
                #expect(error.kind == .connectionFailed)
                #expect(error.isUnavailable)
                #expect(!error.description.contains("not-the-password") && !error.description.contains("secret-x7"))
                #expect(error.description.contains("127.0.0.1"))
            }
        }
    }

    @Test func aSerializationFailureIsRetriedAndTheTransactionRunsAgain() async throws {
        try await withPostgresPool(maxConnections: 1) { pool, database in
            try await pool.withConnection { try $0.executeScript("CREATE TABLE counters (id int PRIMARY KEY, value int); INSERT INTO counters VALUES (1, 0)") }
            let attempts = Shared(0)
            let configuration = database.configuration
            try await pool.transaction(.repeatableRead) { connection in
                let attempt = attempts.update { $0 += 1; return $0 }
                _ = try connection.query("SELECT value FROM counters WHERE id = 1")  // takes the snapshot
                if attempt == 1 {
                    // Another session changes the row after this snapshot was taken.
                    try PostgresConnection(configuration: configuration).execute("UPDATE counters SET value = 100 WHERE id = 1")
                }
                try connection.execute("UPDATE counters SET value = value + 1 WHERE id = 1")
            }
            #expect(attempts.value == 2)
            #expect(pool.statistics.retries == 1)
            #expect(try await pool.withConnection { try $0.first("SELECT value FROM counters") { try $0.int(0) } } == 101)
        }
    }

    @Test(arguments: [0, 10])
    func aDeadlockIsRetryableAndRetriedWhenAllowed(retries: Int) async throws {
        try await withPostgresDatabase { database in
            var configuration = database.poolConfiguration(maxConnections: 2)
            configuration.transactionRetries = retries
            configuration.connection.sessionSettings = ["deadlock_timeout": "20ms"]
            let pool = PostgresPool(configuration: configuration)
            try await pool.withConnection { try $0.executeScript("CREATE TABLE accounts (id int PRIMARY KEY, balance int); INSERT INTO accounts VALUES (1, 0), (2, 0)") }
            let barrier = Barrier(count: 2)
            let attempts = Shared(0)
            // Each locks one row, waits until the other has its row, then wants the other's.
            func transfer(first: Int, second: Int) async -> Result<Void, any Error> {
                await outcome {
                    try await pool.transaction { connection in
                        let attempt = attempts.update { $0 += 1; return $0 }
                        try connection.execute("UPDATE accounts SET balance = balance + 1 WHERE id = $1", first)
                        if attempt <= 2 { barrier.arrive() }
                        try connection.execute("UPDATE accounts SET balance = balance + 1 WHERE id = $1", second)
                    }
                }
            }
            async let one = transfer(first: 1, second: 2)
            async let two = transfer(first: 2, second: 1)
            let results = await [one, two]
            let balances = try await pool.withConnection { try $0.rows("SELECT balance FROM accounts ORDER BY id") { try $0.int(0) } }
            await pool.close()
            let failures = results.compactMap { $0.failure as? PostgresError }
            if retries == 0 {
                #expect(failures.count == 1)
                #expect(failures.first?.kind == .deadlock && failures.first?.sqlState == "40P01")
                #expect(failures.first?.isRetryable == true)
                #expect(balances == [1, 1])
            } else {
                // The retry can meet the other one again (the freed row may go to it
                // first), so it may take more than one; each is a whole new attempt.
                #expect(failures.isEmpty)
                #expect(pool.statistics.retries >= 1)
                #expect(attempts.value == 2 + pool.statistics.retries)
                #expect(balances == [2, 2])
            }
        }
    }
}
