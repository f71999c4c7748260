import Foundation
import HTTPServer
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import TestSupport
import Testing

/// A real server, an alert bot in a runner with its listener on port 0, and alice, who
/// owns the invite-only `group:oncall` the bot posts into (she made it and invited the
/// bot, whose account exists before the runner starts, so its `join:` accepts).
struct AlertWorld {
    let server: TestServer
    let fixture: RunnerFixture
    let adminToken: String
    let alice: TestClient
    let runner: RunningRunner
    let port: Int

    static let token = "t0ken-of-the-test"
    static let botPassword = "alerts-password"

    /// A bot file: header, webhooks and `rules` (indented as in a file).
    static func bot(rules: String, webhooks: String? = nil, extra: String = "") -> String {
        """
        bot: alerts
        account: { username: alerts, password: \(botPassword) }
        join: ["group:oncall"]
        limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
        \(extra)
        webhooks:
        \(webhooks ?? "  - { path: /hooks/alertmanager, format: alertmanager, secret: \(token) }")
        rules:
        \(rules)
        """
    }

    /// The usual rule: every notification of the route is an incident in group:oncall.
    static let incidentRule = """
          - name: critical
            when: { webhook: /hooks/alertmanager }
            do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
        """

    /// POSTs `body` to the runner's `path` with the bearer `token`.
    func post(_ body: Data, path: String = "/hooks/alertmanager", token: String? = AlertWorld.token,
              method: String = "POST") async throws -> TransportResponse {
        try await TestClient.sharedTransport.send(TransportRequest(
            method: method, url: "http://127.0.0.1:\(port)\(path)",
            headers: [("Content-Type", "application/json")] + (token.map { [("Authorization", "Bearer \($0)")] } ?? []),
            body: body))
    }

    /// The bot's messages in group:oncall as they are now, oldest first (not the notices
    /// of its joining).
    func botMessages() async throws -> [Message] {
        try await alice.get("/v1/conversations/group:oncall/messages?limit=200").decode(MessagePage.self).messages
            .filter { $0.sender == "alerts" && $0.type != .system }.reversed()
    }

    /// Waits until the bot's messages in group:oncall satisfy `condition`; returns them.
    @discardableResult
    func awaitMessages(_ what: String, _ condition: @escaping ([Message]) -> Bool) async throws -> [Message] {
        var last: [Message] = []
        do {
            try await eventually(what, hangGuard: .seconds(60)) {
                last = try await botMessages()
                return condition(last)
            }
        } catch {
            throw TestFailure("\(error); the bot's messages: \(last.map(\.text))")
        }
        return last
    }

    /// The runner's metrics text.
    func metrics() async throws -> String {
        let answer = try await TestClient.sharedTransport.send(TransportRequest(url: "http://127.0.0.1:\(port)/metrics"))
        return String(decoding: answer.body, as: UTF8.self)
    }
}

/// Runs `body` in an ``AlertWorld`` with the bot `bot`; `restart` in `body` is not
/// offered: tests that restart run ``withAlertRunner(_:_:)`` twice over one world.
func withAlertWorld(bot: String, time: any TimeSource = SystemTime(), _ body: (AlertWorld) async throws -> Void)
    async throws
{
    try await withAlertServer { server, fixture, adminToken, alice in
        try fixture.write(bot, as: "alerts.yaml")
        try await withAlertRunner(server, fixture, adminToken, alice, time: time, body)
    }
}

/// A server with the bot's account, alice and her group:oncall with the bot invited.
func withAlertServer(
    _ body: (TestServer, RunnerFixture, _ adminToken: String, _ alice: TestClient) async throws -> Void
) async throws {
    try await withBotsFolder { server, fixture, adminToken in
        try await server.createAccount("alerts", password: AlertWorld.botPassword, bot: true)
        let (alice, _) = try await server.client.register("alice")
        let created = try await alice.send("POST", "/v1/groups", body: Data(#"{"name":"oncall"}"#.utf8))
        guard created.status == 201 else { throw TestFailure("create group: \(created.status) \(created.text)") }
        let invited = try await alice.send("POST", "/v1/groups/oncall/invites", body: Data(#"{"user":"alerts"}"#.utf8))
        guard invited.status < 300 else { throw TestFailure("invite: \(invited.status) \(invited.text)") }
        try await body(server, fixture, adminToken, alice)
    }
}

/// A runner over the fixture's bots, with its listener, once the bot is in group:oncall
/// and serves its webhooks.
func withAlertRunner(_ server: TestServer, _ fixture: RunnerFixture, _ adminToken: String, _ alice: TestClient,
                     time: any TimeSource = SystemTime(), _ body: (AlertWorld) async throws -> Void) async throws {
    let configuration = fixture.configuration(server: server, adminToken: adminToken, time: time, listen: true)
    try await withRunningRunner(configuration, services: BotRunner.standardServices) { running in
        try await running.logs.line(containing: "takes webhooks on", hangGuard: .seconds(60))
        try await eventually("the bot is in group:oncall", hangGuard: .seconds(60)) {
            try await alice.get("/v1/groups/oncall/members").text.contains(#""username":"alerts""#)
        }
        let port = try #require(running.runner.port)
        try await body(AlertWorld(server: server, fixture: fixture, adminToken: adminToken, alice: alice,
                                  runner: running, port: port))
    }
}

/// Alertmanager webhook bodies (version 4) for tests.
enum AlertBodies {
    /// A notification of the `DiskFull` group with these instances (name, status), which
    /// started at `startsAt` (an alert that fires again after it resolved starts anew).
    static func diskFull(_ instances: [(String, AlertStatus)], groupKey: String = #"{}:{alertname="DiskFull"}"#,
                         alertname: String = "DiskFull", startsAt: String = "2026-01-05T09:00:00Z") -> Data {
        let firing = instances.contains { $0.1 == .firing }
        let alerts: [[String: Any]] = instances.map { name, status in
            [
                "status": status.rawValue,
                "labels": ["alertname": alertname, "instance": name, "severity": "critical"],
                "annotations": ["summary": "disk full on \(name)"],
                "startsAt": startsAt,
                "endsAt": status == .resolved ? "2026-01-05T09:30:00Z" : "0001-01-01T00:00:00Z",
                "generatorURL": "http://prometheus.example/graph",
                "fingerprint": "fp-\(name)",
            ]
        }
        let body: [String: Any] = [
            "version": "4", "status": firing ? "firing" : "resolved", "receiver": "chat", "groupKey": groupKey,
            "truncatedAlerts": 0, "groupLabels": ["alertname": alertname],
            "commonLabels": ["alertname": alertname, "severity": "critical"], "commonAnnotations": [:] as [String: String],
            "externalURL": "http://alertmanager.example", "alerts": alerts,
        ]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    }
}

/// The real Alertmanager pair in front of an ``AlertWorld``: the pair delivers to a gate
/// (a ``WebhookReceiver`` holding each notification until `twins` copies came), which
/// passes them on to the runner once it listens; the bot's route names both peers for
/// silences, with `routeOptions` (indented keys of the `webhooks:` entry) added.
func withAlertCluster(twins: Int = 1, sendResolved: Bool = true, routeOptions: String = "",
                      _ body: (AlertWorld, AlertmanagerCluster) async throws -> Void) async throws {
    try await withAlertServer { server, fixture, adminToken, alice in
        let gate = try WebhookReceiver(twins: twins)
        let gateServer = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: gate)
        try gateServer.start()
        let cluster = try await AlertmanagerCluster.start(
            webhookURL: "http://127.0.0.1:\(gateServer.port)/hooks/alertmanager", bearerToken: AlertWorld.token,
            sendResolved: sendResolved)
        do {
            let peers = cluster.peers.map { "\"\($0.url)\"" }.joined(separator: ", ")
            let webhooks = """
                  - path: /hooks/alertmanager
                    format: alertmanager
                    secret: \(AlertWorld.token)
                    alertmanager: [\(peers)]
                \(routeOptions)
                """
            try fixture.write(AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks), as: "alerts.yaml")
            try await withAlertRunner(server, fixture, adminToken, alice) { world in
                gate.target = "http://127.0.0.1:\(world.port)"
                try await body(world, cluster)
            }
        } catch {
            Issue.record("\(error)\n\(cluster.logs)")
        }
        await cluster.stop()
        await gateServer.shutdown()
    }
}

extension TestClient {
    /// Posts `text` to `address` (a reply to `replyTo`), as a person types a command there.
    func say(_ text: String, in address: String = "group:oncall", replyTo: MessageID? = nil) async throws {
        let answer = try await send("POST", "/v1/conversations/\(address)/messages",
                                    json: SendMessageRequest(text: text, replyTo: replyTo))
        guard answer.status == 201 else { throw TestFailure("send: \(answer.status) \(answer.text)") }
    }
}
