import Foundation
import IMBots
import IMClient
import Logging
import MatrixClient
import Testing
import TestSupport

/// The runner with a bot file of `platform: {matrix: …}` against Synapse: the same rules,
/// journal and outbox as on Switchboard, the feed and the sends on the homeserver.
@Suite("Matrix bots in the runner")
struct MatrixRunnerTests {
    /// A help desk for the room `#<alias>`, logging in as `user` with the password in
    /// `HELPDESK_MATRIX_PASSWORD`.
    private static func helpDesk(homeserver: String, user: MatrixUserID, alias: String) -> String {
        """
        bot: helpdesk
        account: { username: helpdesk, password: not-used-on-matrix }
        platform:
          matrix:
            homeserver: \(homeserver)
            user: "\(user.rawValue)"
            password_env: HELPDESK_MATRIX_PASSWORD
            rooms: { support: "\(alias)" }
        listen: ["group:support"]
        on_start: { backlog: all }
        limits: { per_conversation: 100/s, per_group: 100/s, total: 100/s }
        rules:
          - name: hours
            when: { command: hours }
            do: [ { reply: "We answer 9 to 5, Monday to Friday." } ]
          - name: hello
            when: { text: { contains: hello, ignore_case: true } }
            do: [ { reply: "Hi {{sender.nickname}}! Try /hours." } ]
        """
    }

    private struct Runner {
        let runner: BotRunner
        let task: Task<Void, any Error>

        func stop() async {
            task.cancel()
            _ = try? await task.value
        }
    }

    /// Starts a runner over `folder` (its bots in `folder/bots`, state in `folder/state`).
    private static func startRunner(_ folder: String, password: String) throws -> Runner {
        let configuration = RunnerConfiguration(
            serverURL: "http://127.0.0.1:9", botsDirectory: folder + "/bots", stateDirectory: folder + "/state",
            environment: ["HELPDESK_MATRIX_PASSWORD": password], watchInterval: 0, pollTimeout: 2)
        let runner = try BotRunner(configuration: configuration, logger: Logger(label: "matrix-runner-test"))
        return Runner(runner: runner, task: Task { try await runner.run() })
    }

    @Test func theHelpDeskAnswersAPersonInARoom() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let botName = server.newUsername("helpdesk")
        _ = try await server.register(botName, password: "bot-password-\(botName)")
        let alias = server.newUsername("support")
        let roomID = try await alice.createRoom(NewRoom(preset: "public_chat", aliasLocalpart: alias))

        let folder = TestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try Self.helpDesk(homeserver: server.baseURL, user: server.userID(botName), alias: "#\(alias):\(server.serverName)")
            .write(toFile: folder + "/bots/helpdesk.yaml", atomically: true, encoding: .utf8)
        let runner = try Self.startRunner(folder, password: "bot-password-\(botName)")
        defer { Task { await runner.stop() } }

        let botID = server.userID(botName).rawValue
        let watcher = SyncWatcher(alice)
        // The bot joins the room its file names.
        _ = try await watcher.until("the bot joining") { seen in
            seen.events(in: roomID, type: "m.room.member").first { $0.stateKey == botID && $0.membership == "join" }
        }
        let question = try await alice.sendText("/hours", to: roomID, transactionID: "hours-1")
        let answer = try await watcher.until("the bot's answer") { seen in
            seen.messages(in: roomID).first { $0.sender == botID }
        }
        #expect(answer.body == "We answer 9 to 5, Monday to Friday.")
        _ = question
        try await alice.sendText("Hello there", to: roomID, transactionID: "hello-1")
        let greeting = try await watcher.until("the greeting") { seen in
            seen.messages(in: roomID).first { $0.sender == botID && $0.body?.hasPrefix("Hi ") == true }
        }
        #expect(greeting.body == "Hi \((try alice.currentUser()).localpart)! Try /hours.")
        await runner.stop()
    }
}
