import Foundation
import IMBots
import IMProtocol
import Lifecycle
import Logging
import TestSupport

/// A folder with bot files and runner state for one test.
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

    /// A runner configuration over this folder, against `server`, creating bot accounts
    /// with `adminToken`.
    func configuration(server: TestServer, adminToken: String?, state: String? = nil, watchInterval: Double = 0,
                       time: any TimeSource = SystemTime(), httpAllow: HTTPAllowList = HTTPAllowList(),
                       listen: Bool = false, metricsToken: String? = nil) -> RunnerConfiguration
    {
        RunnerConfiguration(
            serverURL: server.baseURL, botsDirectory: bots, stateDirectory: state ?? self.state,
            listen: listen ? ListenAddress(host: "127.0.0.1", port: 0) : nil,
            environment: [:], watchInterval: watchInterval, pollTimeout: 5, adminToken: adminToken,
            metricsToken: metricsToken, httpAllow: httpAllow, time: time)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// Writes the config file a runner process (`switchboard run --config`) reads: this
    /// folder's bots and state, `server`, a listener on port 0, and `extra` lines of the
    /// `runner:` section (indented by two). Returns its path.
    func processConfig(server: String, name: String = "config.yaml", extra: String = "") throws -> String {
        let path = root + "/" + name
        try """
            log_level: info
            runner:
              server: \(server)
              listen: 127.0.0.1:0
              bots: \(bots)
              state: \(state)
            \(extra)
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
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
    let logs = LogWatch()

    init(_ configuration: RunnerConfiguration, services: [any BotServiceMaker] = []) throws {
        runner = try BotRunner(configuration: configuration, logger: Logger(label: "runner", level: .debug, sink: logs),
                               services: services)
        let runner = self.runner
        task = Task { try await runner.run() }
    }

    /// Stops the runner (gracefully: its bots drain) and waits until it has.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// Runs `body` with a runner of `configuration`, stopped however `body` ends.
func withRunningRunner<T>(
    _ configuration: RunnerConfiguration, services: [any BotServiceMaker] = [],
    _ body: (RunningRunner) async throws -> T
) async throws -> T {
    let running = try RunningRunner(configuration, services: services)
    do {
        return try await ensuring({ try await body(running) }) { await running.stop() }
    } catch {
        // What the runner said, to tell why.
        for line in running.logs.lines.suffix(20) { print("runner log: \(line.level) \(line.message)") }
        if case .failure(let failure) = await running.task.result { print("runner failed: \(failure)") }
        throw error
    }
}

/// A server with an administrator and a bots folder, removed afterwards however `body`
/// ends: the set-up of every runner test.
///
/// `adminToken` is the server's process-local administration credential, the one
/// `switchboard up` gives its runner: it creates the bots' accounts.
func withBotsFolder<T>(
    _ body: (TestServer, RunnerFixture, _ adminToken: String) async throws -> T
) async throws -> T {
    let fixture = try RunnerFixture()
    defer { fixture.remove() }
    return try await withServer { server in
        try await body(server, fixture, try await server.app.localAdministratorToken())
    }
}

extension TestClient {
    /// Waits until the account exists (a bot's account is created when it starts).
    func awaitUser(_ name: String) async throws {
        try await eventually("the account \(name) exists") { try await get("/v1/users/\(name)").status == 200 }
    }

    /// The texts of messages from `sender` arriving in this account's feed until `count`
    /// have arrived (long-polling: each answer comes with the events; the hang guard only
    /// stops a test that would hang).
    func messages(from sender: String, count: Int, after start: String, hangGuard: Duration = .seconds(60))
        async throws -> [String]
    {
        var cursor = start
        var texts: [String] = []
        let giveUp = ContinuousClock.now + hangGuard
        while texts.count < count {
            guard ContinuousClock.now < giveUp else {
                throw HangError(what: "only \(texts.count) of \(count) messages from \(sender): \(texts)")
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
        try await say(text, at: "user:\(user)")
    }

    /// Sends a message to the group `group`.
    func say(_ text: String, inGroup group: String) async throws {
        try await say(text, at: "group:\(group)")
    }

    private func say(_ text: String, at address: String) async throws {
        let answer = try await send("POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: text))
        guard answer.status == 201 else { throw TestFailure("send: \(answer.status) \(answer.text)") }
    }

    /// Waits until `user` is a member of the group `group`.
    func awaitMember(_ user: String, of group: String) async throws {
        try await eventually("\(user) joined group:\(group)") {
            let members = try await get("/v1/groups/\(group)/members").decode(MemberList.self).members
            return members.contains { $0.user.username == user }
        }
    }

    /// Every message of the direct conversation with `user`, oldest first.
    func history(with user: String) async throws -> [Message] {
        try await get("/v1/conversations/user:\(user)/messages?limit=200").decode(MessagePage.self).messages.reversed()
    }
}

/// The usual set-up of a runner test: a server, a bots folder with `bot`, a runner over
/// it, and alice registered once the bot's account exists and the bot polls. Everything
/// is stopped and removed afterwards, however `body` ends.
func withRunner(
    bot: String = RunnerFixture.echoBot(),
    _ body: (TestServer, RunnerFixture, RunningRunner, TestClient) async throws -> Void
) async throws {
    try await withBotsFolder { server, fixture, adminToken in
        try fixture.write(bot)
        try await withRunningRunner(fixture.configuration(server: server, adminToken: adminToken)) { running in
            let (alice, _) = try await server.client.register("alice")
            try await alice.awaitUser("echo")
            // A bot's first start begins at the present: messages count from its first poll.
            try await server.awaitParkedPolls(1)
            try await body(server, fixture, running, alice)
        }
    }
}

/// The set-up of a group bot's runner test: alice's open group `team`, which bob joined,
/// and a runner with the bot `keeper` in it (`rules`: its rules, as YAML list items
/// indented by two spaces). `body` runs once the bot has joined and polls.
func withTeamKeeper(
    rules: String, _ body: (TestServer, _ alice: TestClient, _ bob: TestClient) async throws -> Void
) async throws {
    try await withBotsFolder { server, fixture, adminToken in
        let (alice, _) = try await server.client.register("alice")
        let (bob, _) = try await server.client.register("bob")
        let created = try await alice.send("POST", "/v1/groups", json: CreateConversationRequest(name: "team", join: .open))
        guard created.status == 201 else { throw TestFailure("group: \(created.status) \(created.text)") }
        let joined = try await bob.send("POST", "/v1/groups/team/join")
        guard joined.status == 200 else { throw TestFailure("join: \(joined.status) \(joined.text)") }
        try fixture.write("""
            bot: keeper
            account: { username: keeper, password: keeper-password, register: true }
            join: ["group:team"]
            rules:
            \(rules)
            """, as: "keeper.yaml")
        try await withRunningRunner(fixture.configuration(server: server, adminToken: adminToken)) { _ in
            try await alice.awaitMember("keeper", of: "team")
            // A bot's first start begins at the present: its first poll.
            try await server.awaitParkedPolls(1)
            try await body(server, alice, bob)
        }
    }
}

extension SpawnedProcess {
    /// The port of a runner process's listener, from its log line, once a bot serves a
    /// webhook route when `webhooks` says so.
    func runnerListenerPort(webhooks: Bool = true) async throws -> Int {
        var port: Int?
        try await eventually("the runner's listener", hangGuard: .seconds(60)) {
            guard let range = errors.range(of: "runner listening on http://127.0.0.1:") else { return false }
            port = Int(errors[range.upperBound...].prefix { $0.isNumber })
            return port != nil
        }
        if webhooks {
            try await eventually("the webhook route", hangGuard: .seconds(60)) { errors.contains("takes webhooks on") }
        }
        return port ?? 0
    }
}
