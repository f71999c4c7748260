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
        /// The `switchboard` executable of this build (`swift build` makes it next to the tests).
        static var binary: String? {
            if let path = ProcessInfo.processInfo.environment["SWITCHBOARD_BINARY"] { return path }
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            for configuration in ["debug", "release"] {
                let path = root.appendingPathComponent(".build/\(configuration)/switchboard").path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
            return nil
        }

        @Test func aRunnerKilledMidStreamRepliesExactlyOnceToEveryMessageAfterRestart() async throws {
            let binary = try #require(Self.binary, "build the switchboard executable first (swift build)")
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
                    kill(first.processIdentifier, SIGKILL)
                    first.waitUntilExit()
                }
                try await Self.running(binary, config: config) { _ in
                    var replies: [String] = []
                    try await eventually("\(total) replies (have \(replies.count))") {
                        replies = try await alice.history(with: "echo").filter { $0.sender == "echo" }.map(\.text)
                        return replies.count >= total
                    }
                    #expect(replies.count == total, "replies: \(replies.count)")
                    #expect(Set(replies) == Set((0..<total).map { "echo: m\($0)" }))
                }
            }
        }

        /// Runs `switchboard run` for `body`; the process is ended afterwards however `body` ends.
        static func running(_ binary: String, config: String, _ body: (Process) async throws -> Void) async throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["run", "--config", config]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            defer {
                if process.isRunning {
                    process.terminate()
                    process.waitUntilExit()
                }
            }
            try await body(process)
        }
    }
}
