import Foundation
import IMClient
import IMProtocol

/// Scenario (b): direct messages to a bot and Alertmanager notifications to an alert bot
/// of the same runner while the runner is killed with SIGKILL at random moments and
/// started again on the same state folder; the server stays up.
///
/// Passes when every message got exactly one reply, quoting it, and every notification
/// (each retried until it is answered 2xx, as Alertmanager retries) is reflected exactly
/// once in its incident's living message: one message per incident, one reply to it per
/// state change, in order, and the message ends showing the group resolved.
struct RunnerKillScenario: Scenario {
    static let name = "runner-kill"
    static let summary = "direct messages and alerts to two bots while the runner is SIGKILLed and restarted; one reply each, every alert shown once"

    let senders: Int
    let messages: Int
    let kills: Int
    /// Each sender's pause between messages, so that the kills fall while the bot has work.
    let pace: Duration
    let seed: UInt64
    let binary: String
    let work: String
    let store: any SoakStore
    /// The notifications to the alert bot (none: the direct messages alone).
    let alerts: AlertPlan
    /// Each incident's pause between notifications: they span the time the messages take.
    let alertPace: Duration

    init(options: Options) throws {
        senders = max(1, try options.int("senders", full: 50, quick: 20))
        messages = try options.int("messages", full: 1000, quick: 400)
        kills = try options.int("kills", full: 5, quick: 3)
        pace = .milliseconds(try options.int("pace-ms", full: 250, quick: 250))
        alerts = try AlertPlan(webhooks: try options.int("webhooks", full: 200, quick: 60),
                               instances: try options.int("alerts-per-incident", full: 5, quick: 3),
                               testdata: options.testdata)
        alertPace = alerts.total == 0 ? .zero : pace * (messages / senders) / alerts.perIncident
        seed = options.seed
        binary = options.binary
        work = try options.workFolder()
        store = try SoakStores.make(options.string("store", default: "sqlite"), work: work)
    }

    static let bot = """
        # The soak test's bot: one quoted reply to every direct message.
        bot: soakbot
        account: { username: soakbot, password: "${SOAK_BOT_PASSWORD}" }
        listen: [direct]
        on_start: { backlog: all }
        limits: { per_conversation: 100/s, per_group: 100/s, total: 1000/s }
        loop_guard: { max_replies_per_minute: 100000 }
        rules:
          - name: answer
            when: { direct: true }
            do: [ { reply: { text: "re: {{message.text}}", quote: true } } ]
            examples:
              - { from: alice, text: "m-1", expect: { reply: "re: m-1" } }
        """

    func run(_ report: inout Report) async throws {
        let transport = CurlTransport()
        let perSender = messages / senders
        report.figure("seed", seed)
        let server = try await ServerUnderTest(binary: binary, store: store, work: work, transport: transport,
                                               settings: ["durability: full", "rate_limits: { enabled: false }"])
        // Bot accounts are made by an administrator, as an operator would before starting the runner.
        _ = try await server.createAccount("soakbot", password: "soak bot password", bot: true)
        let bots = work + "/bots"
        try FileManager.default.createDirectory(atPath: bots, withIntermediateDirectories: true)
        try Self.bot.write(toFile: bots + "/soakbot.yaml", atomically: true, encoding: .utf8)
        let watcher = try await setUpAlerts(server, bots: bots)
        let runner = try await RunnerUnderTest(binary: binary, server: server.baseURL, bots: bots, work: work,
                                               environment: ["SOAK_BOT_PASSWORD": "soak bot password"]
                                                   .merging(Self.alertEnvironment) { $1 },
                                               transport: transport)
        let hooks = APIClient(transport: transport, baseURL: runner.baseURL, token: Self.alertToken)
        var registered: [APIClient] = []
        for sender in 0..<senders {
            registered.append(try await server.client.register("soak-s\(sender)", password: "soak password \(sender)"))
        }
        let users = registered
        // The bot starts at the present on its first start: wait until it answers.
        let warmUp = await users[0].sendRetrying("warm-up", to: "user:soakbot", clientMessageID: "warm-up")
        guard warmUp.message != nil else { throw SoakFailure("the warm-up message was not sent: \(warmUp.failures)") }
        try await waitForReplies(users[0], texts: ["warm-up"], patience: .seconds(60))

        try await waitForAlertBot(watcher)

        let progress = Progress()
        async let killing = killLoop(runner, progress: progress, total: perSender * senders + alerts.total)
        async let deliveries = sendAlerts(hooks, progress: progress)
        let outcomes = await withTaskGroup(of: [SendOutcome].self) { group in
            for (sender, user) in users.enumerated() {
                group.addTask {
                    var outcomes: [SendOutcome] = []
                    for index in 0..<perSender {
                        let outcome = await user.sendRetrying("m-\(sender)-\(index)", to: "user:soakbot",
                                                              clientMessageID: "soak-\(sender)-\(index)")
                        if outcome.message != nil { progress.add() }
                        outcomes.append(outcome)
                        try? await Task.sleep(for: pace)
                    }
                    return outcomes
                }
            }
            var all: [SendOutcome] = []
            for await outcomes in group { all += outcomes }
            return all
        }
        let webhooks = await deliveries
        progress.finish()
        let restarts = try await killing
        let sent = outcomes.compactMap(\.message)
        report.figure("direct messages", "\(sent.count) answered of \(outcomes.count), from \(senders) accounts, one every \(pace) from each")
        report.figure("runner kills", restarts)
        report.check(sent.count == outcomes.count, "\(outcomes.count - sent.count) sends given up")
        report.check(restarts == kills, "\(restarts) of \(kills) kills happened")

        // Every message needs its reply; give the restarted runner time to work off its backlog.
        let drainStart = ContinuousClock.now
        var missing = 0, doubled = 0, unquoted = 0
        for (sender, user) in users.enumerated() {
            let texts = (0..<perSender).map { "m-\(sender)-\($0)" }
            let history: [Message]
            do {
                history = try await waitForReplies(user, texts: texts, patience: .seconds(120))
            } catch {
                history = try await user.history("user:soakbot")
            }
            let byID = Dictionary(history.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for text in texts {
                let replies = history.filter { $0.sender == "soakbot" && $0.text == "re: \(text)" }
                if replies.isEmpty { missing += 1 }
                if replies.count > 1 { doubled += 1 }
                if let reply = replies.first, reply.replyTo.flatMap({ byID[$0] })?.text != text { unquoted += 1 }
            }
        }
        report.figure("replies missing", missing)
        report.figure("replies doubled", doubled)
        report.figure("backlog drained in", String(format: "%.1f s after the last send", (ContinuousClock.now - drainStart).seconds))
        report.check(missing == 0, "\(missing) messages never got a reply")
        report.check(doubled == 0, "\(doubled) messages got more than one reply")
        report.check(unquoted == 0, "\(unquoted) replies do not quote their message")
        try await auditAlerts(webhooks, watcher: watcher, into: &report)
        await runner.stop()
        await server.stop()
        await transport.shutdown()
    }

    /// The conversation with the bot once it holds a reply to each of `texts`, or a
    /// failure after `patience`.
    @discardableResult
    private func waitForReplies(_ user: APIClient, texts: [String], patience: Duration) async throws -> [Message] {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        let wanted = Set(texts.map { "re: \($0)" })
        while true {
            let history = try await user.history("user:soakbot")
            let replied = Set(history.filter { $0.sender == "soakbot" }.map(\.text))
            if wanted.isSubset(of: replied) { return history }
            guard clock.now < deadline else { throw SoakFailure("\(wanted.subtracting(replied).count) replies missing after \(patience)") }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Kills the runner at `kills` random points of the sends and notifications answered,
    /// and starts it again.
    private func killLoop(_ runner: RunnerUnderTest, progress: Progress, total: Int) async throws -> Int {
        var random = SeededRandom(seed: seed)
        let points = (0..<kills).map { _ in Int(Double(total) * Double.random(in: 0.05...0.95, using: &random)) }.sorted()
        var done = 0
        for point in points {
            guard await progress.wait(for: point) else { break }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...250, using: &random)))
            try await runner.crash()
            // Down for a moment, so that webhooks meet a refused connection and are retried.
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...600, using: &random)))
            try await runner.restart()
            done += 1
        }
        return done
    }
}
