import Foundation
import IMBots
import IMProtocol
import Logging
import TestSupport

/// A folder with bot files and runner state for one test, and a runner over it.
struct RunnerFixture {
    let root: String
    var bots: String { root + "/bots" }
    var state: String { root + "/state" }

    init() throws {
        root = TestServer.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: bots, withIntermediateDirectories: true)
    }

    /// Writes a bot file.
    func write(_ text: String, as name: String = "echo.yaml") throws {
        try text.write(toFile: bots + "/" + name, atomically: true, encoding: .utf8)
    }

    func configuration(server: TestServer, state: String? = nil, watchInterval: Double = 0) -> RunnerConfiguration {
        RunnerConfiguration(
            serverURL: server.baseURL, botsDirectory: bots, stateDirectory: state ?? self.state, listen: nil,
            environment: [:], watchInterval: watchInterval, pollTimeout: 5)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// Makes a bot's account as an administrator would: public registration makes no bot
    /// accounts, so the runner's `register: true` finds it taken and logs in.
    static func provisionBot(_ username: String = "echo", password: String = "echo-password", on server: TestServer)
        async throws
    {
        try await server.createAccount(username, password: password, bot: true)
    }

    /// A bot that answers every direct message with `prefix` and the text.
    static func echoBot(prefix: String = "echo", username: String = "echo") -> String {
        """
        bot: echo
        account: { username: \(username), password: echo-password, register: true }
        limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
        loop_guard: { max_replies_per_minute: 10000 }
        on_start: { backlog: all }
        rules:
          - name: echo
            when: { direct: true }
            do: [ { reply: "\(prefix): {{message.text}}" } ]
            examples:
              - { from: alice, text: "hi", expect: { reply: "\(prefix): hi" } }
        """
    }
}

/// A runner started in this process, stopped by cancelling its task.
final class RunningRunner: Sendable {
    let runner: BotRunner
    let task: Task<Void, any Error>
    let logs: MemoryLogSink

    init(_ configuration: RunnerConfiguration) throws {
        logs = MemoryLogSink()
        runner = try BotRunner(configuration: configuration, logger: Logger(label: "runner", level: .debug, sink: logs))
        let runner = self.runner
        task = Task { try await runner.run() }
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

extension TestClient {
    /// Waits until the account exists (a bot registers itself when it starts).
    func awaitUser(_ name: String, guardSeconds: Double = 30) async throws {
        let deadline = Date().addingTimeInterval(guardSeconds)
        while Date() < deadline {
            if try await get("/v1/users/\(name)").status == 200 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("\(name) never appeared")
    }

    /// The texts of messages from `sender` arriving in this account's feed until `count`
    /// have arrived (long-polling; the deadline only guards against a hang).
    func messages(from sender: String, count: Int, after start: String, guardSeconds: Double = 60)
        async throws -> [String]
    {
        var cursor = start
        var texts: [String] = []
        let deadline = Date().addingTimeInterval(guardSeconds)
        while texts.count < count {
            guard Date() < deadline else {
                throw TestFailure("only \(texts.count) of \(count) messages from \(sender): \(texts)")
            }
            let batch = try await get("/v1/events?cursor=\(cursor)&timeout=5").decode(EventBatch.self)
            cursor = batch.cursor
            texts += batch.events.compactMap { event in
                event.type == .message && event.message?.sender == sender ? event.message?.text : nil
            }
        }
        return texts
    }

    /// A fresh cursor (now).
    func cursorNow() async throws -> String {
        try await get("/v1/events").decode(EventBatch.self).cursor
    }

    /// Sends a direct message.
    func say(_ text: String, to user: String) async throws {
        let answer = try await send("POST", "/v1/conversations/user:\(user)/messages", json: SendMessageRequest(text: text))
        guard answer.status == 201 else { throw TestFailure("send: \(answer.status) \(answer.text)") }
    }

    /// Every message of the direct conversation with `user`, oldest first.
    func history(with user: String) async throws -> [Message] {
        try await get("/v1/conversations/user:\(user)/messages?limit=200").decode(MessagePage.self).messages.reversed()
    }
}

/// The usual set-up of a runner test: a server, a bots folder with `bot`, a runner over
/// it, and alice registered once the bot's account exists. Everything is stopped and
/// removed afterwards, however `body` ends.
func withRunner(
    bot: String = RunnerFixture.echoBot(),
    _ body: (TestServer, RunnerFixture, RunningRunner, TestClient) async throws -> Void
) async throws {
    let server = try await TestServer.start()
    let fixture = try RunnerFixture()
    defer {
        fixture.remove()
        server.removeData()
    }
    try fixture.write(bot)
    try await RunnerFixture.provisionBot(on: server)
    let running = try RunningRunner(fixture.configuration(server: server))
    do {
        let (alice, _) = try await server.client.register("alice")
        try await alice.awaitUser("echo")
        // A bot's first start begins at the present: messages count from its first poll.
        try await server.awaitParkedPolls(1)
        try await body(server, fixture, running, alice)
    } catch {
        await running.stop()
        await server.stop()
        throw error
    }
    await running.stop()
    await server.stop()
}
