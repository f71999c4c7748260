import Foundation
import HTTPServer
import IMBots
import IMClient
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// The seam for later parts of a bot (a webhook inbox, a scheduler): a `BotServiceMaker`
    /// adds one service to every bot, which can take requests on the runner's listener and
    /// queue alerts through the bot's journal and outbox.
    @Suite(.timeLimit(.minutes(2))) struct RunnerServiceTests {
        /// A webhook-like service: POST /hooks/<bot> queues an alert to alice.
        struct AlertInbox: BotServiceMaker {
            func makeService(for bot: BotHandle) -> (any Service)? {
                FunctionService("inbox \(bot.name)") {
                    let path = "/hooks/\(bot.name)"
                    bot.routes.add(path) { request in
                        let text = String(decoding: request.body, as: UTF8.self)
                        let alert = OutgoingMessage(to: .user("alice"), text: "alert: \(text)",
                                                    clientMessageID: "hook:\(text)", rule: "inbox", action: .send)
                        return Response(status: bot.queueAlert(alert) ? 202 : 503)
                    }
                    defer { bot.routes.remove(path) }
                    await Task.waitForCancellation()
                }
            }
        }

        @Test func aServiceAddedToEveryBotTakesRequestsAndQueuesAlerts() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(RunnerFixture.echoBot())
                let configuration = fixture.configuration(server: server, adminToken: adminToken, listen: true)
                try await withRunningRunner(configuration, services: [AlertInbox()]) { running in
                    let (alice, _) = try await server.client.register("alice")
                    try await alice.awaitUser("echo")
                    let start = try await alice.cursorNow()
                    let port = try #require(running.runner.port)
                    let answer = try await TestClient.sharedTransport.send(TransportRequest(
                        method: "POST", url: "http://127.0.0.1:\(port)/hooks/echo", body: Data("disk full".utf8)))
                    #expect(answer.status == 202)
                    #expect(try await alice.messages(from: "echo", count: 1, after: start) == ["alert: disk full"])
                }
            }
        }

        @Test func theRunnersMetricsCanRequireAToken() async throws {
            try await withBotsFolder { server, fixture, adminToken in
                try fixture.write(RunnerFixture.echoBot())
                let configuration = fixture.configuration(server: server, adminToken: adminToken, listen: true,
                                                          metricsToken: "metrics-secret")
                try await withRunningRunner(configuration) { running in
                    try await running.logs.line(containing: "runner listening on")
                    let url = "http://127.0.0.1:\(try #require(running.runner.port))/metrics"
                    func get(_ token: String?) async throws -> TransportResponse {
                        try await TestClient.sharedTransport.send(TransportRequest(
                            url: url, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? []))
                    }
                    let none = try await get(nil)
                    #expect(none.status == 401)
                    #expect(String(decoding: none.body, as: UTF8.self).contains(#""code":"UNAUTHORIZED""#))
                    #expect(try await get("metrics-secre").status == 401)
                    #expect(try await get("metrics-secret-and-more").status == 401)
                    let good = try await get("metrics-secret")
                    #expect(good.status == 200)
                    #expect(String(decoding: good.body, as: UTF8.self).contains("switchboard_bot_connected"))
                }
            }
        }
    }
}
