import Foundation
import HTTPServer
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import TestSupport
import Testing

/// The inbox's answers when a webhook cannot be stored: 503 with `Retry-After` (never a
/// 429, which Alertmanager would drop), counted and audited, nothing half-stored.
@Suite("Webhook inbox")
struct WebhookInboxTests {
    static let bot = """
        bot: alerts
        account: { username: alerts, password: secret-password }
        webhooks: [ { path: /hooks/alertmanager, format: alertmanager, secret: t0ken } ]
        rules:
          - { name: critical, when: { webhook: /hooks/alertmanager }, do: [ { incident: { to: "group:oncall" } } ] }
        """

    func inbox(_ fixture: BotPartsFixture) throws -> WebhookInbox {
        let routes = ServedRoutes()
        routes.set(try #require(fixture.parts.rules.now.definition.webhooks.first).route)
        return WebhookInbox(parts: fixture.parts, routes: routes) {}
    }

    func post(_ inbox: WebhookInbox, _ body: Data) async -> Response {
        await inbox.receive(Request(method: .post, path: "/hooks/alertmanager",
                                    headers: ["Authorization": "Bearer t0ken"], body: body))
    }

    @Test("a full inbox answers 503 with Retry-After, counts it and writes an audit line; a stopped bot too")
    func unavailable() async throws {
        let fixture = try await BotPartsFixture(bot: Self.bot, transport: LimitedServer(limited: "nobody").transport)
        let inbox = try inbox(fixture)
        for number in 1...Int64(WebhookInbox.capacity) {
            fixture.parts.journal.record(.webhook(WebhookDelivery(
                number: number, path: "/hooks/alertmanager", format: .alertmanager, body: "{}", receivedAt: 0,
                rules: ["critical"], marks: [])))
        }
        let full = await post(inbox, AlertBodies.diskFull([("db-7", .firing)]))
        #expect(full.status == 503)
        #expect(full.headers["Retry-After"] == "5")
        #expect(try JSONDecoder().decode(ErrorEnvelope.self, from: full.body).error.code == .unavailable)
        #expect(fixture.parts.journal.state.alerts.inbox.count == WebhookInbox.capacity, "nothing stored")
        #expect(fixture.auditLines.contains { $0.contains(#""outcome":"refused""#) && $0.contains("webhooks") })
        #expect(fixture.parts.metrics.webhookCount(bot: "alerts", path: "/hooks/alertmanager", .unavailable) == 1)

        await fixture.parts.journal.close()
        let stopped = await post(inbox, AlertBodies.diskFull([("db-9", .firing)]))
        #expect(stopped.status == 503)
        #expect(fixture.parts.metrics.webhookCount(bot: "alerts", path: "/hooks/alertmanager", .unavailable) == 2)
    }

    @Test("a stored webhook is synced before its answer; its twin waits for the same and is a duplicate")
    func durableBeforeAnswer() async throws {
        let fixture = try await BotPartsFixture(bot: Self.bot, transport: LimitedServer(limited: "nobody").transport)
        let inbox = try inbox(fixture)
        let body = AlertBodies.diskFull([("db-7", .firing)])
        let first = await post(inbox, body)
        #expect(first.status == 200)
        #expect(String(decoding: first.body, as: UTF8.self) == #"{"status":"stored","delivery":1}"#)
        #expect(fixture.store.syncCount == 1)
        #expect(fixture.store.records.contains { if case .webhook = $0.change { true } else { false } })
        let twin = await post(inbox, body)
        #expect(String(decoding: twin.body, as: UTF8.self) == #"{"status":"duplicate"}"#)
        #expect(fixture.parts.journal.state.alerts.inbox.count == 1)
    }
}
