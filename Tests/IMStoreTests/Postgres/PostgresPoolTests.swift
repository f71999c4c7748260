import Foundation
import IMStore
import Lifecycle
import PostgresTestSupport
import Testing

/// The pool's bounds, its waiting, its recovery from lost sessions, and its close.
@Suite struct PostgresPoolTests {
    /// Runs `body` with a pool whose time is `time`, closing it after.
    private func withPool<T>(
        maxConnections: Int, maxWaiting: Int = 1000, time: ManualTime = ManualTime(),
        _ body: (PostgresPool, PostgresTestDatabase, ManualTime) async throws -> T
    ) async throws -> T {
        try await withPostgresDatabase { database in
            let pool = PostgresPool(
                configuration: database.poolConfiguration(
                    maxConnections: maxConnections, maxWaiting: maxWaiting, acquireTimeout: .seconds(5)),
                time: time)
            do {
                let result = try await body(pool, database, time)
                await pool.close()
                return result
            } catch {
                await pool.close()
                throw error
            }
        }
    }

    @Test func neverMoreSessionsThanTheBoundAndTheNextRequestWaitsForOne() async throws {
        try await withPool(maxConnections: 3) { pool, _, time in
            let holds = (0..<3).map { _ in WriterHold() }
            try await withThrowingTaskGroup(of: Int32.self) { group in
                for hold in holds {
                    group.addTask { try await pool.withConnection { connection in hold.hold(); return connection.backendPID } }
                }
                for hold in holds { await hold.waitUntilHeld() }
                group.addTask { try await pool.backendPID() }
                await time.waitForSleepers(1)  // the fourth request waits, its timer running
                #expect(pool.statistics.waiting == 1)
                #expect(pool.statistics.slots == 3)
                for hold in holds { hold.release() }
                var pids: Set<Int32> = []
                for try await pid in group { pids.insert(pid) }
                #expect(pids.count == 3)  // the fourth ran on one of the three
            }
            let statistics = pool.statistics
            #expect(statistics.slots == 3 && statistics.connects == 3 && statistics.idle == 3 && statistics.waiting == 0)
        }
    }

    @Test func aFullWaitQueueRefusesAtOnceAndWaitersTimeOut() async throws {
        try await withPool(maxConnections: 1, maxWaiting: 2) { pool, _, time in
            let hold = WriterHold()
            async let held: Void = pool.withConnection { _ in hold.hold() }
            await hold.waitUntilHeld()
            async let first = outcome { try await pool.withConnection { _ in 1 } }
            async let second = outcome { try await pool.withConnection { _ in 2 } }
            await time.waitForSleepers(2)

            let third = await outcome { try await pool.withConnection { _ in 3 } }
            let refused = try #require(third.failure as? PostgresError)
            #expect(refused.kind == .poolOverloaded && refused.isUnavailable)
            #expect(pool.statistics.rejected == 1 && pool.statistics.waiting == 2)

            time.advance(by: .seconds(5))
            for result in await [first, second] {
                let error = try #require(result.failure as? PostgresError)
                #expect(error.kind == .poolTimeout && error.isUnavailable)
                #expect(error.message.contains("all 1 busy"))
            }
            #expect(pool.statistics.timeouts == 2 && pool.statistics.waiting == 0)
            hold.release()
            try await held
            #expect(try await pool.withConnection { _ in 4 } == 4)
        }
    }

    @Test func aSessionKilledWhileIdleIsReplacedBeforeTheNextJob() async throws {
        try await withPool(maxConnections: 1) { pool, database, _ in
            let before = try await pool.backendPID()
            try await database.terminate(before)
            try await database.waitForBackendExit(before)
            let after = try await pool.backendPID()
            #expect(after != before)
            #expect(pool.statistics.reconnects == 1 && pool.statistics.connects == 2)
        }
    }

    @Test func aSessionKilledDuringAStatementFailsThatJobAsUnavailableAndTheNextOneReconnects() async throws {
        try await withPool(maxConnections: 1) { pool, database, _ in
            let before = try await pool.backendPID()
            async let sleeping = outcome { try await pool.withConnection { try $0.execute("SELECT pg_sleep(60)") } }
            try await database.waitForActiveQuery("SELECT pg_sleep")
            try await database.terminate(before)
            let error = try #require(await sleeping.failure as? PostgresError)
            #expect(error.kind == .connectionLost && error.isUnavailable)
            #expect(error.description.contains("administrator command"), "\(error)")
            #expect(try await pool.withConnection { try $0.first("SELECT 41 + 1") { try $0.int(0) } } == 42)
            #expect(try await pool.backendPID() != before)
        }
    }

    @Test func cancellingTheTaskCancelsTheRunningStatementAndKeepsTheSession() async throws {
        try await withPool(maxConnections: 1) { pool, database, _ in
            let pid = try await pool.backendPID()
            let result = try await withThrowingTaskGroup(of: Result<Int, any Error>.self) { group in
                group.addTask { await outcome { try await pool.withConnection { try $0.execute("SELECT pg_sleep(60)") } } }
                try await database.waitForActiveQuery("SELECT pg_sleep")
                group.cancelAll()
                return try await group.next()
            }
            #expect(result?.failure is CancellationError)
            #expect(try await pool.backendPID() == pid)
            #expect(pool.statistics.connects == 1)
        }
    }

    @Test func closeFailsTheWaitingLetsTheRunningFinishAndRefusesTheRest() async throws {
        try await withPostgresDatabase { database in
            let time = ManualTime()
            let pool = PostgresPool(configuration: database.poolConfiguration(maxConnections: 1), time: time)
            let hold = WriterHold()
            async let running = pool.withConnection { connection -> Int64 in
                hold.hold()
                return try connection.first("SELECT 7") { try $0.int(0) } ?? 0
            }
            await hold.waitUntilHeld()
            async let waiting = outcome { try await pool.withConnection { _ in 1 } }
            await time.waitForSleepers(1)
            async let closed: Void = pool.close()
            let refused = await waiting.failure as? StoreError
            #expect(refused == .closed)
            hold.release()
            let value = try await running
            #expect(value == 7)
            await closed
            let after = await outcome { try await pool.withConnection { _ in 1 } }
            #expect(after.failure as? StoreError == .closed)
        }
    }

    @Test func aPoolOnAMissingDatabaseFailsEachRequestAtOnceAndWorksOnceItExists() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let name = cluster.newDatabaseName()
        let database = PostgresTestDatabase(cluster: cluster, name: name)
        let pool = PostgresPool(configuration: database.poolConfiguration(maxConnections: 1))
        for _ in 0..<2 {
            let result = await outcome { try await pool.withConnection { _ in 1 } }
            let error = try #require(result.failure as? PostgresError)
            #expect(error.kind == .connectionFailed && error.message.contains(name))
        }
        try await cluster.createDatabase(named: name)
        #expect(try await pool.withConnection { _ in 1 } == 1)
        #expect(pool.statistics.connects == 1)
        await pool.close()
        try await cluster.dropDatabase(name)
    }

    @Test func urlSettingsWinOverTheDefaultsAndSessionSettingsApply() async throws {
        try await withPostgresDatabase { database in
            var configuration = database.poolConfiguration(maxConnections: 1)
            configuration.connection.url += "?application_name=from-the-url"
            configuration.connection.sessionSettings = ["statement_timeout": "50ms"]
            let pool = PostgresPool(configuration: configuration)
            let name = try await pool.withConnection { try $0.first("SELECT current_setting('application_name')") { try $0.text(0) } }
            #expect(name == "from-the-url")
            let slow = await outcome { try await pool.withConnection { try $0.execute("SELECT pg_sleep(10)") } }
            let error = try #require(slow.failure as? PostgresError)
            #expect(error.kind == .queryCanceled && error.sqlState == "57014")
            #expect(!error.isRetryable && !error.isUnavailable)
            await pool.close()
        }
    }
}
