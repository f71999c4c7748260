#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMProtocol
import TestSupport
import Testing

/// The runner as a separate process, killed with SIGKILL in the middle of a conversation:
/// after a restart every message has exactly one reply.
@Suite struct RunnerCrashTests {
    @Test func aRunnerKilledMidStreamRepliesExactlyOnceToEveryMessageAfterRestart() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let server = try await TestServer.start()
        let fixture = try RunnerFixture()
        defer { fixture.remove() }
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
            """.write(toFile: config, atomically: true, encoding: .utf8)

        try await RunnerFixture.provisionBot(on: server)
        let first = try Self.launch(binary, config: config)
        let (alice, _) = try await server.client.register("alice")
        try await alice.awaitUser("echo")
        try await server.awaitParkedPolls(1)  // the bot's first poll: it handles what comes after
        let start = try await alice.cursorNow()
        let total = 40
        for index in 0..<total { try await alice.say("m\(index)", to: "echo") }
        // Some replies are out, most are still queued or not yet decided.
        _ = try await alice.messages(from: "echo", count: 5, after: start)
        first.signal(SIGKILL)
        _ = await first.waitForExit()

        let second = try Self.launch(binary, config: config)
        defer { second.signal(SIGKILL) }
        let deadline = Date().addingTimeInterval(60)
        var replies: [String] = []
        while Date() < deadline {
            replies = try await alice.history(with: "echo").filter { $0.sender == "echo" }.map(\.text)
            if replies.count >= total { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(replies.count == total, "replies: \(replies.count)")
        #expect(Set(replies) == Set((0..<total).map { "echo: m\($0)" }))
        second.signal(SIGTERM)
        _ = await second.waitForExit()
        await server.stop()
        server.removeData()
    }

    static func launch(_ binary: String, config: String) throws -> SpawnedProcess {
        try SpawnedProcess(binary, ["run", "--config", config])
    }
}
