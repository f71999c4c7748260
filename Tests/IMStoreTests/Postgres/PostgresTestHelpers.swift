import Foundation
import IMStore
import PostgresTestSupport
import Testing

/// Lets `count` threads (pool sessions) meet: each blocks in `arrive()` until all have.
final class Barrier: @unchecked Sendable {
    // @unchecked: `arrived` is only touched while holding `condition`.
    private let condition = NSCondition()
    private let count: Int
    private var arrived = 0

    init(count: Int) { self.count = count }

    /// Blocks until `count` callers arrived; the guard only stops a test that would hang.
    func arrive() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date().addingTimeInterval(30)
        while arrived < count && condition.wait(until: deadline) {}
    }
}

extension PostgresTestDatabase {
    /// Waits until a statement starting with `prefix` runs in this database.
    func waitForActiveQuery(_ prefix: String) async throws {
        let name = self.name
        try await waitUntil("a query '\(prefix)…' runs") {
            try await cluster.admin.withConnection { connection in
                try connection.first(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND starts_with(query, $2)",
                    name, prefix
                ) { try $0.int(0) } ?? 0 > 0
            }
        }
    }

    /// Ends a session of this database's server as an administrator would.
    func terminate(_ pid: Int32) async throws {
        let done = try await cluster.admin.withConnection { connection in
            try connection.first("SELECT pg_terminate_backend($1::int4)", pid) { try $0.bool(0) }
        }
        #expect(done == true)
    }
}

extension PostgresPool {
    /// The server process of the pool's session (with one session: its only one).
    func backendPID() async throws -> Int32 { try await withConnection { $0.backendPID } }
}

extension Result {
    /// The error of a failed result.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
