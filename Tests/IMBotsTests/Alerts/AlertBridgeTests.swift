import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Synchronization
import TestSupport
import Testing

extension ServerSuites {
    /// The alert bridge in a runner against a real server: webhooks in on the runner's
    /// listener, one living message per alert group out.
    @Suite(.timeLimit(.minutes(3))) struct AlertBridgeTests {
        @Test func aGroupGetsOneLivingMessageEditedInPlaceWithAReplyForEachChangeAndTwinsAreFolded() async throws {
            try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule)) { world in
                let first = AlertBodies.diskFull([("db-7", .firing)])
                #expect(try await world.post(first).status == 200)
                let twin = try await world.post(first)
                #expect(twin.status == 200)
                #expect(String(decoding: twin.body, as: UTF8.self) == #"{"status":"duplicate"}"#)
                let posted = try await world.awaitMessages("the living message") { $0.count == 1 }
                let living = posted[0]
                #expect(living.text.hasPrefix("🔥 FIRING: DiskFull\n1 firing · 0 resolved"))
                #expect(living.text.contains("• db-7: disk full on db-7"))

                #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing), ("db-9", .firing)])).status == 200)
                var messages = try await world.awaitMessages("the edit and the 'new' reply") { messages in
                    messages.count == 2 && messages[0].text.contains("2 firing")
                }
                #expect(messages[0].id == living.id, "edited in place")
                #expect(messages[0].editedAt != nil)
                #expect(messages[1].text == "🔥 1 new: db-9")
                #expect(messages[1].replyTo == living.id)

                #expect(try await world.post(AlertBodies.diskFull([("db-7", .resolved), ("db-9", .resolved)])).status == 200)
                messages = try await world.awaitMessages("resolved") { $0.count == 3 }
                #expect(messages[0].text.hasPrefix("✅ RESOLVED: DiskFull\n0 firing · 2 resolved"))
                #expect(messages[2].text == "✅ all resolved: DiskFull")
                #expect(messages[2].replyTo == living.id)

                let metrics = try await world.metrics()
                #expect(metrics.contains(#"switchboard_webhook_requests_total{bot="alerts",path="/hooks/alertmanager",outcome="stored"} 3"#))
                #expect(metrics.contains(#"switchboard_webhook_requests_total{bot="alerts",path="/hooks/alertmanager",outcome="duplicate"} 1"#))
            }
        }

        @Test func twoCopiesArrivingAtOnceAreStoredOnce() async throws {
            try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule)) { world in
                let body = AlertBodies.diskFull([("db-7", .firing), ("db-9", .firing)])
                let answers = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<8 {
                        group.addTask { String(decoding: try await world.post(body).body, as: UTF8.self) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(answers.filter { $0.contains("stored") }.count == 1, "\(answers)")
                #expect(answers.filter { $0.contains("duplicate") }.count == 7)
                try await world.awaitMessages("one message") { $0.count == 1 }
            }
        }

        @Test func theGroupToMessageMapSurvivesARestart() async throws {
            try await withAlertServer { server, fixture, adminToken, alice in
                try fixture.write(AlertWorld.bot(rules: AlertWorld.incidentRule), as: "alerts.yaml")
                var living: Message?
                try await withAlertRunner(server, fixture, adminToken, alice) { world in
                    #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing)])).status == 200)
                    living = try await world.awaitMessages("posted") { $0.count == 1 }.first
                }
                try await withAlertRunner(server, fixture, adminToken, alice) { world in
                    #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing), ("db-9", .firing)])).status == 200)
                    let messages = try await world.awaitMessages("edited after the restart") { $0.count == 2 }
                    #expect(messages[0].id == living?.id, "the same message, not a new one")
                    #expect(messages[0].text.contains("2 firing"))
                    #expect(messages[1].text == "🔥 1 new: db-9")
                }
            }
        }

        /// A route its bot does not serve yet (starting, or restarting after a reload) is a
        /// path of a bot file all the same: 503 with `Retry-After`, which Alertmanager
        /// retries, not 404, which it drops for good (found by the runner kill soak: a
        /// notification sent just after a restart was lost), with the route's body limit.
        @Test func aDeclaredRouteNotServedYetAnswers503NotNotFound() async throws {
            let webhooks = """
                  - { path: /hooks/alertmanager, format: alertmanager, secret: \(AlertWorld.token), max_body: 64KiB }
                """
            try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks)) { world in
                // What the listener has between its start and the bot's service taking the path.
                world.runner.runner.routes.remove("/hooks/alertmanager")
                let body = AlertBodies.diskFull((0..<80).map { ("db-\($0)", .firing) })
                #expect(body.count > 16 * 1024, "over the listener's limit for paths nobody declares")
                let answer = try await world.post(body)
                let error = try JSONDecoder().decode(ErrorEnvelope.self, from: answer.body).error
                #expect(answer.status == 503)
                #expect(error.code == .unavailable)
                #expect(answer.header("Retry-After") == "5")
                #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing)]), path: "/hooks/nothing").status == 404)
                #expect(try await world.botMessages().isEmpty, "nothing was stored or sent")
            }
        }

        @Test func wrongSecretsBadBodiesAndOversizedBodiesAreRefusedAndNothingIsSent() async throws {
            let webhooks = """
                  - { path: /hooks/alertmanager, format: alertmanager, secret: \(AlertWorld.token), max_body: 4KiB }
                """
            try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks)) { world in
                let body = AlertBodies.diskFull([("db-7", .firing)])
                func status(_ answer: TransportResponse) -> (Int, String) {
                    let error = try? JSONDecoder().decode(ErrorEnvelope.self, from: answer.body).error
                    return (answer.status, error?.code.rawValue ?? "")
                }
                #expect(status(try await world.post(body, token: nil)) == (401, "UNAUTHORIZED"))
                #expect(status(try await world.post(body, token: "t0ken-of-the-tes")) == (401, "UNAUTHORIZED"))
                #expect(status(try await world.post(Data("{not json".utf8))) == (400, "INVALID_REQUEST"))
                #expect(status(try await world.post(Data(#"{"version":"4"}"#.utf8))) == (400, "INVALID_REQUEST"))
                #expect(status(try await world.post(body, method: "PUT")) == (405, "METHOD_NOT_ALLOWED"))
                let huge = AlertBodies.diskFull((0..<100).map { ("db-\($0)", .firing) })
                #expect(status(try await world.post(huge)) == (413, "PAYLOAD_TOO_LARGE"))
                #expect(status(try await world.post(body, path: "/hooks/nothing")) == (404, "NOT_FOUND"))
                // The runner's own paths stay on the listener.
                let health = try await TestClient.sharedTransport.send(TransportRequest(url: "http://127.0.0.1:\(world.port)/healthz"))
                #expect(String(decoding: health.body, as: UTF8.self) == #"{"bots":["alerts"],"problems":[],"status":"ok"}"#)
                let metrics = try await world.metrics()
                #expect(metrics.contains(#"outcome="unauthorized"} 2"#))
                #expect(metrics.contains(#"outcome="invalid"} 3"#))
                #expect(!metrics.contains(#"outcome="stored""#))
                #expect(try await world.botMessages().isEmpty, "nothing was sent")
            }
        }

        @Test func anUnsetSecretIsGeneratedKeptPrivateAndItsPathLogged() async throws {
            let webhooks = #"  - { path: /hooks/alertmanager, format: alertmanager, secret: "${ALERT_TOKEN:-}" }"#
            try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks)) { world in
                let file = world.fixture.state + "/alerts/webhook-hooks-alertmanager.secret"
                try await world.runner.logs.line(containing: "generated one, kept in \(file)")
                let attributes = try FileManager.default.attributesOfItem(atPath: file)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
                let secret = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(secret.hasPrefix("sbw_") && secret.count > 40)
                let body = AlertBodies.diskFull([("db-7", .firing)])
                #expect(try await world.post(body, token: nil).status == 401)
                #expect(try await world.post(body, token: "").status == 401)
                #expect(try await world.post(body, token: secret).status == 200)
                try await world.awaitMessages("posted") { $0.count == 1 }
            }
        }

        @Test func aLongAlertTextIsSplitOnLineBoundariesWithMarkers() async throws {
            let webhooks = "  - { path: /hooks/build, format: json, secret: \(AlertWorld.token) }"
            let rules = """
                  - name: log
                    when: { webhook: /hooks/build }
                    dedupe: { key: "{{payload.id}}" }
                    do: [ { send: { to: "group:oncall", text: "{{#payload.lines}}{{.}}\\n{{/payload.lines}}" } } ]
                """
            try await withAlertWorld(bot: AlertWorld.bot(rules: rules, webhooks: webhooks)) { world in
                let lines = (0..<120).map { "line \($0): " + String(repeating: "x", count: 50) }
                let body = try JSONSerialization.data(withJSONObject: ["id": 1, "lines": lines])
                #expect(try await world.post(body, path: "/hooks/build").status == 200)
                let parts = try await world.awaitMessages("two parts") { $0.count == 2 }
                #expect(parts[0].text.hasPrefix("(1/2) line 0: "))
                #expect(parts[1].text.hasPrefix("(2/2) line "))
                let joined = parts.map { $0.text.dropFirst(6) }.joined(separator: "\n")
                #expect(joined.split(separator: "\n").map(String.init) == lines, "nothing lost, in order")
            }
        }
    }
}
