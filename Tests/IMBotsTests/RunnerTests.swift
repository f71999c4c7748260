import Foundation
import IMBots
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// The runner against a real server: replies, exactly-once across crashes, one runner per
    /// bot, and reloads that keep working rules.
    @Suite(.timeLimit(.minutes(3))) struct RunnerTests {
        @Test func aDirectMessageGetsTheBotsReply() async throws {
            try await withRunner { _, _, _, alice in
                let start = try await alice.cursorNow()
                try await alice.say("hello bot", to: "echo")
                #expect(try await alice.messages(from: "echo", count: 1, after: start) == ["echo: hello bot"])
            }
        }

        @Test func theBotNeverAnswersItsOwnMessagesOrTwiceToOne() async throws {
            try await withRunner { _, _, running, alice in
                let start = try await alice.cursorNow()
                for index in 0..<20 { try await alice.say("m\(index)", to: "echo") }
                let replies = try await alice.messages(from: "echo", count: 20, after: start)
                #expect(Set(replies) == Set((0..<20).map { "echo: m\($0)" }))
                await running.stop()
                // After the stop, the conversation holds 20 messages each way and nothing more.
                let history = try await alice.history(with: "echo")
                #expect(history.filter { $0.sender == "echo" }.count == 20)
                #expect(history.filter { $0.sender == "alice" }.count == 20)
            }
        }

        @Test func aRoleRuleLooksUpTheSendersRoleInTheGroup() async throws {
            try await withTeamKeeper(rules: """
                  - name: owners
                    when: { group: team, from: { role: owner }, text: { starts_with: status } }
                    do: [ { reply: "owner {{sender.username}}" }, { stop: true } ]
                  - name: others
                    when: { group: team, text: { starts_with: status } }
                    do: [ { reply: "member {{sender.username}}" } ]
                """) { _, alice, bob in
                let start = try await alice.cursorNow()
                for (index, sender) in [alice, bob].enumerated() {
                    try await sender.say("status?", inGroup: "team")
                    let replies = try await alice.messages(from: "keeper", count: index + 1, after: start)
                    if index == 1 { #expect(replies == ["owner alice", "member bob"]) }
                }
            }
        }

        @Test func aSecondRunnerOfTheSameBotIsRefused() async throws {
            try await withRunner { server, fixture, first, alice in
                let second = try BotRunner(configuration: fixture.configuration(server: server, adminToken: nil))
                let error = await #expect(throws: RunnerError.self) { try await second.run() }
                #expect(error?.description.contains("bot 'echo' is already running in another runner") == true)
                // The first keeps answering, once.
                let start = try await alice.cursorNow()
                try await alice.say("still there?", to: "echo")
                #expect(try await alice.messages(from: "echo", count: 1, after: start) == ["echo: still there?"])
                await first.stop()
                #expect(try await alice.history(with: "echo").filter { $0.sender == "echo" }.count == 1)
            }
        }

        @Test func aRunnerElsewhereWithTheSameBotTakesOverWithoutDoubleReplies() async throws {
            try await withRunner { server, fixture, first, alice in
                // Another machine: its own state folder, so no local lock stops it. Its login
                // (same device name) ends the first runner's, which stops.
                let elsewhere = fixture.configuration(server: server, adminToken: nil, state: fixture.root + "/elsewhere")
                try await withRunningRunner(elsewhere) { second in
                    try await first.logs.line(containing: "stopped")
                    // The second runner's first start begins at the present, its first poll:
                    // what is sent between its login and that poll is before its start.
                    try await server.awaitParkedPolls(1)
                    let start = try await alice.cursorNow()
                    for index in 0..<5 { try await alice.say("q\(index)", to: "echo") }
                    let replies = try await alice.messages(from: "echo", count: 5, after: start)
                    #expect(Set(replies) == Set((0..<5).map { "echo: q\($0)" }))
                    await second.stop()
                    #expect(try await alice.history(with: "echo").filter { $0.sender == "echo" }.count == 5)
                }
            }
        }

        /// The watcher looks at the folder on the runner's clock: time is moved by hand.
        @Test func aChangedFileIsPickedUpWhileRunning() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(RunnerFixture.echoBot(prefix: "old"))
                let time = ManualTime()
                let configuration = fixture.configuration(server: server, adminToken: adminToken, watchInterval: 1, time: time)
                try await withRunningRunner(configuration) { running in
                    let (alice, _) = try await server.client.register("alice")
                    try await alice.awaitUser("echo")
                    try await server.awaitParkedPolls(1)
                    try fixture.write(RunnerFixture.echoBot(prefix: "newer"))
                    // Each second of the runner's time the watcher looks once.
                    try await eventually("the watcher noticed the change") {
                        time.advance(by: .seconds(1))
                        return running.logs.contains("new rules applied")
                    }
                    let start = try await alice.cursorNow()
                    try await alice.say("which?", to: "echo")
                    #expect(try await alice.messages(from: "echo", count: 1, after: start) == ["newer: which?"])
                }
            }
        }
    }
}
