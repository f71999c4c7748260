import Foundation
import IMProtocol
import TestSupport
import Testing

/// `/metrics` as Prometheus's own linter reads it: `promtool check metrics` (Debian's
/// `prometheus`, which `make test` installs) over a real server's answer after traffic
/// that fills every family (requests of several routes and statuses, messages, a parked
/// poll answered, a failed login, the store's writer counters in seconds).
@Suite struct MetricsLintTests {
    @Test(.enabled(if: Promtool.isInstalled, Comment(rawValue: Promtool.missing)), arguments: TestStore.allCases)
    func promtoolFindsNothingToComplainAbout(_ store: TestStore) async throws {
        try await withServer(store: store) { server in
            let (alice, _) = try await server.client.register("alice")
            let (bob, _) = try await server.client.register("bob")
            let cursor = try await bob.cursor()
            async let answered = bob.events(after: cursor, timeout: 30)
            try await server.awaitParkedPolls(1)
            try await alice.message("user:bob", "hello")
            #expect(try await answered.events.count == 1)
            _ = try await alice.get("/v1/users/nobody")
            _ = try await server.client.send("POST", "/v1/login", json: LoginRequest(username: "alice", password: "wrong password"))

            let answer = try await server.client.get("/metrics")
            expectStatus(answer, 200)
            #expect(answer.text.contains("switchboard_store_busy_seconds_total "))
            #expect(answer.text.contains("switchboard_postgres_sessions ") == (store == .postgres))
            let (status, complaints) = try await Promtool.check(answer.body, folder: server.directory)
            #expect(status == 0, "promtool check metrics: \(complaints)\n\(answer.text)")
            #expect(complaints.isEmpty, "promtool check metrics: \(complaints)")
        }
    }
}
