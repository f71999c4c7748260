#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// The runner as a separate process, killed with SIGKILL in the middle of a conversation:
    /// after a restart every message has exactly one reply.
    @Suite(.timeLimit(.minutes(3))) struct RunnerCrashTests {
        @Test func aRunnerKilledMidStreamRepliesExactlyOnceToEveryMessageAfterRestart() async throws {
            let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
            try await withBotsFolder { server, fixture, adminToken in
                // Twenty replies a second, so the kill lands while replies are still queued.
                try fixture.write(
                    RunnerFixture.echoBot().replacingOccurrences(
                        of: "per_conversation: 1000/s", with: "per_conversation: 20/s"))
                let config = fixture.root + "/config.yaml"
                try """
                    log_level: warning
                    runner:
                      server: \(server.baseURL)
                      listen: 127.0.0.1:0
                      bots: \(fixture.bots)
                      state: \(fixture.state)
                      admin_token: \(adminToken)
                    """.write(toFile: config, atomically: true, encoding: .utf8)

                let total = 40
                let (alice, _) = try await server.client.register("alice")
                try await Self.running(binary, config: config) { first in
                    try await alice.awaitUser("echo")
                    try await server.awaitParkedPolls(1)  // the bot's first poll: it handles what comes after
                    let start = try await alice.cursorNow()
                    for index in 0..<total { try await alice.say("m\(index)", to: "echo") }
                    // Some replies are out, most are still queued or not yet decided.
                    _ = try await alice.messages(from: "echo", count: 5, after: start)
                    #expect(try await first.stop(SIGKILL) == 128 + SIGKILL)
                }
                try await Self.running(binary, config: config) { second in
                    var replies: [String] = []
                    try await eventually("\(total) replies") {
                        replies = try await alice.history(with: "echo").filter { $0.sender == "echo" }.map(\.text)
                        return replies.count >= total
                    }
                    #expect(replies.count == total, "replies: \(replies.count)")
                    #expect(Set(replies) == Set((0..<total).map { "echo: m\($0)" }))
                    // A graceful stop: SIGTERM drains the bots and exits 0.
                    let status = try await second.stop(SIGTERM)
                    #expect(status == 0, "exit status \(status); standard error: \(second.errors)")
                }
            }
        }

        /// Runs `switchboard run` for `body`; a process still running afterwards (however
        /// `body` ended) gets SIGTERM, and SIGKILL past the hang guard.
        static func running(_ binary: String, config: String, _ body: (SpawnedProcess) async throws -> Void)
            async throws
        {
            let process = try SpawnedProcess(binary, ["run", "--config", config])
            try await ensuring({ try await body(process) }) {
                if process.exitStatus == nil { _ = try? await process.stop(SIGTERM) }
            }
        }
    }
}
