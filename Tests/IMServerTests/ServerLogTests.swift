import Foundation
import IMProtocol
import Logging
import TestSupport
import Testing

/// The HTTP library's messages are the server's log lines: they go to the server's
/// logger (its log file, reopened on SIGHUP, when it has one), not to standard error
/// apart from it.
@Suite struct ServerLogTests {
    @Test func theHTTPLayersRefusalIsLoggedByTheServersLogger() async throws {
        try await withServer({ $0.http.connectionsPerAddress = 1 }) { server in
            let (alice, _) = try await server.client.register("alice")
            let cursor = try await alice.cursor()
            let parked = Task { try await alice.events(after: cursor, timeout: 30) }
            defer { parked.cancel() }
            try await server.awaitParkedPolls(1)

            // The parked poll holds this address's one connection: a second is refused.
            _ = try? await server.client.get("/healthz")
            try await eventually("the refusal logged") {
                server.logs.lines.contains {
                    $0.label == "http" && $0.level == .warning
                        && $0.message.hasPrefix("refusing connections from 127.0.0.1: it holds 1 already")
                }
            }
        }
    }
}
