#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// Two runner processes sharing bots through the server (`runner.journal: server`):
    /// one killed with SIGKILL mid-conversation, its bots resume on the other and every
    /// message gets exactly one reply.
    @Suite(.timeLimit(.minutes(3))) struct RunnerTakeoverTests {
        static let bots = (0..<4).map { "echo\($0)" }

        /// An echo bot of its own account, with a password every runner logs it in with.
        static func bot(_ name: String) -> String {
            """
            bot: \(name)
            account: { username: \(name), password: \(name)-password, register: true }
            limits: { per_conversation: 20/s, per_group: 1000/s, total: 1000/s }
            loop_guard: { max_replies_per_minute: 10000 }
            on_start: { backlog: all }
            rules:
              - name: echo
                when: { direct: true }
                do: [ { reply: "\(name): {{message.text}}" } ]
            """
        }

        /// The holder the server names for `bot`'s lease now (asked as the bot, with a
        /// holder of the test's own, which a held lease refuses); nil when it is free.
        static func holder(of bot: String, _ server: TestServer) async throws -> String? {
            let client = try await server.client.login(bot, password: "\(bot)-password")
            let answer = try await client.send("POST", "/v1/me/lease", json: LeaseRequest(holder: "probe", ttlMilliseconds: 1000))
            if answer.status == 200 {
                let lease = try answer.decode(BotLease.self)
                _ = try await client.send("DELETE", "/v1/me/lease?fence=\(lease.fence)")
                return nil
            }
            let error = try answer.decode(ErrorEnvelope.self).error
            guard error.reason == "lease_held" else { throw TestFailure("lease probe: \(answer.status) \(answer.text)") }
            return error.message
        }

        @Test func aKilledRunnersBotsResumeOnTheOtherWithOneReplyPerMessage() async throws {
            let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
            try await withBotsFolder { server, fixture, adminToken in
                // Runner A has the first two bots; runner B all four, so it takes the other
                // two and waits for A's.
                let folderA = fixture.root + "/bots-a"
                try FileManager.default.createDirectory(atPath: folderA, withIntermediateDirectories: true)
                for (index, name) in Self.bots.enumerated() {
                    try Self.bot(name).write(toFile: fixture.bots + "/\(name).yaml", atomically: true, encoding: .utf8)
                    if index < 2 {
                        try Self.bot(name).write(toFile: folderA + "/\(name).yaml", atomically: true, encoding: .utf8)
                    }
                }
                func config(_ id: String, bots: String) throws -> String {
                    let path = fixture.root + "/\(id).yaml"
                    try """
                        log_level: notice
                        runner:
                          server: \(server.baseURL)
                          listen: 127.0.0.1:0
                          bots: \(bots)
                          state: \(fixture.root)/state-\(id)
                          admin_token: \(adminToken)
                          journal: server
                          id: \(id)
                          lease: { ttl: 2, retry: 0.2 }
                        """.write(toFile: path, atomically: true, encoding: .utf8)
                    return path
                }
                let configA = try config("runner-a", bots: folderA)
                let configB = try config("runner-b", bots: fixture.bots)
                let (alice, _) = try await server.client.register("alice")
                let start = try await alice.cursorNow()
                let perBot = 20

                try await RunnerCrashTests.running(binary, config: configA) { first in
                    for bot in Self.bots.prefix(2) { try await alice.awaitUser(bot) }
                    try await eventually("runner A holds its two bots", hangGuard: .seconds(60)) {
                        for bot in Self.bots.prefix(2) {
                            guard try await Self.holder(of: bot, server)?.contains("runner-a/") == true else { return false }
                        }
                        return true
                    }
                    try await RunnerCrashTests.running(binary, config: configB) { second in
                        // B takes the two bots nobody holds, and keeps trying A's.
                        for bot in Self.bots.suffix(2) { try await alice.awaitUser(bot) }
                        try await eventually("runner B holds the other two", hangGuard: .seconds(60)) {
                            for bot in Self.bots.suffix(2) {
                                guard try await Self.holder(of: bot, server)?.contains("runner-b/") == true else {
                                    return false
                                }
                            }
                            return true
                        }
                        try await server.awaitParkedPolls(Self.bots.count)

                        for index in 0..<perBot / 2 {
                            for bot in Self.bots { try await alice.say("m\(index)", to: bot) }
                        }
                        // Some replies are out, most still queued (20 a second per bot).
                        _ = try await alice.messages(from: "echo0", count: 3, after: start)
                        #expect(try await first.stop(SIGKILL) == 128 + SIGKILL)
                        // Messages keep coming while A's bots have no runner.
                        for index in perBot / 2..<perBot {
                            for bot in Self.bots { try await alice.say("m\(index)", to: bot) }
                        }
                        for bot in Self.bots {
                            var replies: [String] = []
                            try await eventually("\(perBot) replies from \(bot)", hangGuard: .seconds(90)) {
                                replies = try await alice.history(with: bot).filter { $0.sender == bot }.map(\.text)
                                return replies.count >= perBot
                            }
                            #expect(replies.count == perBot, "\(bot) replies: \(replies.count)")
                            #expect(Set(replies) == Set((0..<perBot).map { "\(bot): m\($0)" }))
                        }
                        // Every bot runs on B now: it took A's two over.
                        for bot in Self.bots {
                            #expect(try await Self.holder(of: bot, server)?.contains("runner-b/") == true)
                        }
                        let log = second.errors
                        for bot in Self.bots.prefix(2) {
                            #expect(log.contains("bot \(bot): took its lease"), "runner B's log: \(log)")
                        }
                        let status = try await second.stop(SIGTERM)
                        #expect(status == 0, "exit status \(status); standard error: \(second.errors)")
                    }
                }
                // B released every lease when it stopped: the next runner need not wait.
                for bot in Self.bots { #expect(try await Self.holder(of: bot, server) == nil) }
            }
        }
    }
}
