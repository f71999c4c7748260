import IMStore
import Lifecycle
import PostgresTestSupport
import Testing

/// LISTEN/NOTIFY on a connection of its own: delivery at commit, and a reconnect that
/// says what may have been missed.
@Suite struct PostgresListenerTests {
    /// The wake-ups a listener reports, awaited one by one.
    final class Heard: Sendable {
        let stream: AsyncStream<ClusterWakeup>
        private let continuation: AsyncStream<ClusterWakeup>.Continuation

        init(_ listener: PostgresListener) {
            (stream, continuation) = AsyncStream.makeStream(of: ClusterWakeup.self)
            listener.observe { [continuation] in continuation.yield($0) }
        }

        /// The next `count` wake-ups.
        func next(_ count: Int = 1) async -> [ClusterWakeup] {
            var heard: [ClusterWakeup] = []
            for await wakeup in stream {
                heard.append(wakeup)
                if heard.count == count { break }
            }
            return heard
        }

        /// The payloads of the next `count` notifications (wake-ups that are not are kept too,
        /// as "missed?").
        func payloads(_ count: Int) async -> [String] {
            await next(count).map { wakeup in
                if case .notification(let notification) = wakeup { return notification.payload }
                return "missed?"
            }
        }
    }

    /// Runs `body` with a listener running in a child task, cancelled at the end.
    private func withListener<T: Sendable>(
        _ database: PostgresTestDatabase, channels: [String] = ["feed"], time: any TimeSource = SystemTime(),
        _ body: @escaping @Sendable (PostgresListener, Heard) async throws -> T
    ) async throws -> T {
        var connection = database.configuration
        connection.applicationName = "listener-test"
        let listener = try PostgresListener(
            configuration: PostgresListener.Configuration(connection: connection, channels: channels), time: time)
        let heard = Heard(listener)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await listener.run()
                return nil
            }
            group.addTask { try await body(listener, heard) }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw PostgresTestError("the listener ended by itself")
        }
    }

    @Test func notificationsArriveInOrderOnlyWhenTheirTransactionCommits() async throws {
        try await withPostgresPool { pool, database in
            try await withListener(database) { _, heard in
                #expect(await heard.next() == [.mayHaveMissed])
                for index in 0..<100 {
                    try await pool.withConnection { try $0.notify(channel: "feed", payload: "n\(index)") }
                }
                #expect(await heard.payloads(100) == (0..<100).map { "n\($0)" })

                let configuration = database.configuration
                try await pool.transaction { connection in
                    try connection.notify(channel: "feed", payload: "inside")
                    // Sent and committed by another session while this one is still open.
                    try PostgresConnection(configuration: configuration).notify(channel: "feed", payload: "outside")
                }
                _ = await outcome {
                    try await pool.transaction { connection in
                        try connection.notify(channel: "feed", payload: "rolled back")
                        throw Deliberate(index: 0)
                    }
                }
                try await pool.withConnection { try $0.notify(channel: "other", payload: "not listened to") }
                try await pool.withConnection { try $0.notify(channel: "feed", payload: "last") }
                #expect(await heard.payloads(3) == ["outside", "inside", "last"])
            }
        }
    }

    @Test func aKilledListenerReconnectsListensAgainAndSaysItMayHaveMissedSome() async throws {
        try await withPostgresPool { pool, database in
            try await withListener(database, channels: ["feed", "polls"]) { listener, heard in
                #expect(await heard.next() == [.mayHaveMissed])
                let pid = try #require(try await pool.withConnection { connection in
                    try connection.first(
                        "SELECT pid::int8 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'listener-test'"
                    ) { try $0.int(0) }
                })
                try await database.terminate(Int32(pid))
                #expect(await heard.next() == [.mayHaveMissed])
                try await pool.withConnection { connection in
                    try connection.notify(channel: "polls", payload: "after")
                    try connection.notify(channel: "feed", payload: "again")
                }
                let after = await heard.next(2)
                #expect(after.map { if case .notification(let n) = $0 { "\(n.channel):\(n.payload)" } else { "missed?" } } == ["polls:after", "feed:again"])
                let statistics = listener.statistics
                #expect(statistics.sessions == 2 && statistics.notifications == 2 && statistics.failedConnects == 0)
                #expect(statistics.lastError?.contains("57P01") == true || statistics.lastError?.contains("terminat") == true)
            }
        }
    }

    @Test func aFailedConnectWaitsTheReconnectDelayBeforeTryingAgain() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let name = cluster.newDatabaseName()
        let missing = PostgresTestDatabase(cluster: cluster, name: name)
        let time = ManualTime()
        try await withListener(missing, time: time) { listener, heard in
            await time.waitForSleepers(1)  // the first attempt failed: the database does not exist
            #expect(listener.statistics.failedConnects == 1 && listener.statistics.sessions == 0)
            #expect(listener.statistics.lastError?.contains(name) == true)
            time.advance(by: .milliseconds(99))
            #expect(time.sleeperCount == 1)  // not yet
            time.advance(by: .milliseconds(1))
            await time.waitForSleepers(1)  // second failure; now it waits twice as long
            #expect(listener.statistics.failedConnects == 2)
            try await cluster.createDatabase(named: name)
            time.advance(by: .milliseconds(199))
            #expect(time.sleeperCount == 1)
            time.advance(by: .milliseconds(1))
            #expect(await heard.next() == [.mayHaveMissed])
            #expect(listener.statistics.sessions == 1)
        }
        try await cluster.dropDatabase(name)
    }

    @Test func channelNamesLISTENWouldChangeAreRefused() throws {
        for channel in ["Feed", "", "1feed", "feed-x", "feed;drop", String(repeating: "a", count: 64)] {
            let configuration = PostgresListener.Configuration(
                connection: PostgresConfiguration(url: "postgresql://127.0.0.1/none"), channels: [channel])
            #expect(throws: PostgresError.self, "\(channel)") { try PostgresListener(configuration: configuration) }
        }
        let fine = PostgresListener.Configuration(
            connection: PostgresConfiguration(url: "postgresql://127.0.0.1/none"), channels: ["feed_2", "_x"])
        #expect(throws: Never.self) { try PostgresListener(configuration: fine) }
    }
}
