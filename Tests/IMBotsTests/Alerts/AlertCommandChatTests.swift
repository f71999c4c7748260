import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// The alert bridge's commands as chat replies, against a real server: who may do
    /// what, and `/ack`. (Silences against real Alertmanagers: `AlertBridgeClusterTests`.)
    @Suite(.timeLimit(.minutes(3))) struct AlertCommandChatTests {
        @Test func ackMarksTheIncidentAndOnlyTheConfiguredRoleMaySilence() async throws {
            let webhooks = """
                  - { path: /hooks/alertmanager, format: alertmanager, secret: \(AlertWorld.token), alertmanager: [http://127.0.0.1:9] }
                """
            try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks)) { world in
                let (bob, _) = try await world.server.client.register("bob")
                _ = try await world.alice.send("POST", "/v1/groups/oncall/invites", body: Data(#"{"user":"bob"}"#.utf8))
                #expect(try await bob.send("POST", "/v1/groups/oncall/join").status < 300)
                #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing)])).status == 200)
                let living = try #require(try await world.awaitMessages("posted") { $0.count == 1 }.first)

                func say(_ client: TestClient, _ text: String, replyTo: MessageID? = nil) async throws {
                    let answer = try await client.send("POST", "/v1/conversations/group:oncall/messages",
                                                       json: SendMessageRequest(text: text, replyTo: replyTo))
                    guard answer.status == 201 else { throw TestFailure("send: \(answer.status) \(answer.text)") }
                }

                try await say(bob, "/ack", replyTo: living.id)
                var messages = try await world.awaitMessages("acknowledged") { messages in
                    messages.contains { $0.text == "👀 acknowledged by bob" }
                }
                #expect(messages[0].text.contains("acknowledged by bob"), "the living message shows who")

                // bob is a member; the route lets admins (the default) silence.
                try await say(bob, "/silence 2h deploying", replyTo: living.id)
                messages = try await world.awaitMessages("refused") { messages in
                    messages.contains { $0.text.hasPrefix("Only the group's admins and above may silence") }
                }
                // Not a reply to an alert, and bad arguments: answers that say what to do.
                try await say(world.alice, "/silence 2h")
                try await say(world.alice, "/silence soon", replyTo: living.id)
                try await say(world.alice, "/confirm")
                messages = try await world.awaitMessages("answers") { messages in
                    messages.contains { $0.text.hasPrefix("Reply /silence DURATION") }
                        && messages.contains { $0.text.hasPrefix("'soon' is not a duration") }
                        && messages.contains { $0.text.hasPrefix("Nothing to confirm") }
                }
                // alice owns the group: her /silence reaches the (unreachable) Alertmanager and
                // still shows the preview, saying it could not ask.
                try await say(world.alice, "/silence 30m flapping disk", replyTo: living.id)
                let preview = try await world.awaitMessages("the preview") { messages in
                    messages.contains { $0.text.hasPrefix("Silence for 30m with matchers:") }
                }.first { $0.text.hasPrefix("Silence for 30m") }
                #expect(preview?.text.contains(#"alertname="DiskFull""#) == true)
                #expect(preview?.text.contains("Alertmanager could not say which alerts it mutes") == true)
                #expect(preview?.text.contains("db-7") == true)
                try await say(world.alice, "/confirm")
                try await world.awaitMessages("the failure, said") { messages in
                    messages.contains { $0.text.hasPrefix("The silence was not created: no Alertmanager peer answered") }
                }
            }
        }
    }
}
