import Foundation
import IMProtocol
import IMStore
import Lifecycle
import PostgresTestSupport
import TestSupport
import Testing

/// Several PostgreSQL stores on one fresh database, as several server nodes would open
/// it, each with its cluster feed running and listening.
struct PostgresNodes {
    let stores: [PostgresStore]
    let database: PostgresTestDatabase

    /// Runs `body` with `count` stores on one new database; stops their cluster feeds,
    /// closes them and drops the database after, however `body` ends.
    static func with<T: Sendable>(
        _ count: Int, clock: TestClock = TestClock(step: 1), _ body: @escaping @Sendable (PostgresNodes) async throws -> T
    ) async throws -> T {
        let cluster = try await PostgresTestCluster.shared()
        let database = PostgresTestDatabase(cluster: cluster, name: try await cluster.createStoreDatabase())
        return try await ensuring({
            var stores: [PostgresStore] = []
            for _ in 0..<count {
                stores.append(
                    try await PostgresStore.open(
                        PostgresStore.Configuration(
                            connection: database.configuration, readConnections: 4, acquireTimeout: .seconds(60)),
                        clock: clock.function))
            }
            let nodes = PostgresNodes(stores: stores, database: database)
            return try await ensuring({
                try await withThrowingTaskGroup(of: T?.self) { group in
                    let listening = Arrivals()
                    for store in stores {
                        let first = Latch()
                        store.cluster.observe { event in
                            if event == .mayHaveMissed, !first.isOpen {
                                first.open()
                                listening.arrive()
                            }
                        }
                        group.addTask {
                            try await store.cluster.run()
                            return nil
                        }
                    }
                    await listening.wait(for: count)
                    group.addTask { try await body(nodes) }
                    defer { group.cancelAll() }
                    while let result = try await group.next() {
                        if let result { return result }
                    }
                    throw StoreTestError("the nodes stopped before the test's body returned")
                }
            }) {
                for store in stores { await store.close() }
            }
        }) {
            try? await cluster.dropDatabase(database.name)
        }
    }
}

/// Collects the feed updates one store tells its observers, in the order it tells them.
final class HeardUpdates: Sendable {
    private let updates = Shared([FeedUpdate]())

    init(_ store: any EventStore) {
        store.observeFeeds { [updates] update in updates.update { $0.append(update) } }
    }

    var all: [FeedUpdate] { updates.value }

    /// The positions of every entry heard of, in the order heard.
    var positions: [Int64] { all.flatMap { $0.entries.map(\.position) } }

    /// Waits until an entry at `position` or later was heard of.
    func wait(for position: Int64) async throws {
        try await eventually("an update reaching position \(position)") { positions.last.map { $0 >= position } ?? false }
    }
}
