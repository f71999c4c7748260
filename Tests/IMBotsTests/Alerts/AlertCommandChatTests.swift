import Foundation
import HTTPServer
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

                // bob is a member; the route lets admins (the default) use alert commands: he is
                // refused every one, and learns nothing of the alerts.
                for command in ["/ack", "/silence 2h deploying", "/silences", "/refresh", "/resolve"] {
                    try await bob.say(command, replyTo: command == "/silences" ? nil : living.id)
                }
                var messages = try await world.awaitMessages("refused") { messages in
                    messages.filter { $0.text == "Only the group's admins and above may use alert commands here." }.count == 5
                }
                #expect(!messages[0].text.contains("acknowledged"), "bob's /ack did nothing")
                // The owner acknowledges.
                try await world.alice.say("/ack", replyTo: living.id)
                messages = try await world.awaitMessages("acknowledged") { messages in
                    messages.contains { $0.text == "👀 acknowledged by alice" }
                }
                #expect(messages[0].text.contains("acknowledged by alice"), "the living message shows who")

                // Not a reply to an alert, and bad arguments: answers that say what to do.
                try await world.alice.say("/silence 2h")
                try await world.alice.say("/silence soon", replyTo: living.id)
                try await world.alice.say("/confirm")
                _ = try await world.awaitMessages("answers") { messages in
                    messages.contains { $0.text.hasPrefix("Reply /silence DURATION") }
                        && messages.contains { $0.text.hasPrefix("'soon' is not a duration") }
                        && messages.contains { $0.text.hasPrefix("Nothing to confirm") }
                }
                // alice owns the group: her /silence reaches the (unreachable) Alertmanager and
                // still shows the preview, saying it could not ask.
                try await world.alice.say("/silence 30m flapping disk", replyTo: living.id)
                let preview = try await world.awaitMessages("the preview") { messages in
                    messages.contains { $0.text.hasPrefix("Silence for 30m with matchers:") }
                }.first { $0.text.hasPrefix("Silence for 30m") }
                #expect(preview?.text.contains(#"alertname="DiskFull""#) == true)
                #expect(preview?.text.contains("Alertmanager could not say which alerts it mutes") == true)
                #expect(preview?.text.contains("db-7") == true)
                try await world.alice.say("/confirm")
                try await world.awaitMessages("the failure, said") { messages in
                    messages.contains { $0.text.hasPrefix("The silence was not created: no Alertmanager peer answered") }
                }
            }
        }

        /// Issue 25 §4: any account used to DM the bot `/silences` and read every silence.
        /// Outside the groups it posts alerts to, every alert command gets one refusal that
        /// says nothing of the alerts, and Alertmanager is not asked.
        @Test func alertCommandsFromOutsideTheAlertGroupsAreRefusedWithoutAskingAlertmanager() async throws {
            try await withEndpoint({ _, _ in
                Response(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"[{"id":"s-1","status":{"state":"active"},"matchers":[{"name":"alertname","value":"DiskFull","isRegex":false,"isEqual":true}],"startsAt":"2026-01-05T09:00:00Z","endsAt":"2026-01-05T11:00:00Z","createdBy":"alice","comment":"db-7 is being rebuilt"},{"id":"s-2","status":{"state":"active"},"matchers":[{"name":"alertname","value":"PayrollDown","isRegex":false,"isEqual":true}],"startsAt":"2026-01-05T09:00:00Z","endsAt":"2026-01-05T12:00:00Z","createdBy":"carol","comment":"payroll-db moves"}]"#.utf8))
            }) { peer in
                let webhooks = """
                      - { path: /hooks/alertmanager, format: alertmanager, secret: \(AlertWorld.token), alertmanager: ["http://127.0.0.1:\(peer.port)"], silence_role: member }
                    """
                try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks)) { world in
                    #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing)])).status == 200)
                    _ = try await world.awaitMessages("posted") { $0.count == 1 }
                    let (mallory, _) = try await world.server.client.register("mallory")
                    for command in ["/silences", "/unsilence s-1", "/refresh", "/ack", "/silence 2h x"] {
                        let sent = try await mallory.send("POST", "/v1/conversations/user:alerts/messages",
                                                          json: SendMessageRequest(text: command))
                        #expect(sent.status == 201)
                    }
                    try await eventually("the refusals", hangGuard: .seconds(60)) {
                        let page = try await mallory.get("/v1/conversations/user:alerts/messages?limit=50").decode(MessagePage.self)
                        return page.messages.filter { $0.sender == "alerts" }.count == 5
                    }
                    let answers = try await mallory.get("/v1/conversations/user:alerts/messages?limit=50")
                        .decode(MessagePage.self).messages.filter { $0.sender == "alerts" }.map(\.text)
                    #expect(Set(answers) == ["Alert commands work only in the groups the alert bridge posts alerts to."],
                            "\(answers)")
                    #expect(peer.received.isEmpty, "Alertmanager was asked: \(peer.received.map(\.path))")

                    // In the group, a member (silence_role: member) lists the silences of its alerts.
                    let (bob, _) = try await world.server.client.register("bob")
                    _ = try await world.alice.send("POST", "/v1/groups/oncall/invites", body: Data(#"{"user":"bob"}"#.utf8))
                    #expect(try await bob.send("POST", "/v1/groups/oncall/join").status < 300)
                    _ = try await bob.send("POST", "/v1/conversations/group:oncall/messages",
                                           json: SendMessageRequest(text: "/silences"))
                    let listed = try await world.awaitMessages("the list") { messages in
                        messages.contains { $0.text.hasPrefix("Active silences of this group's alerts:") }
                    }.first { $0.text.hasPrefix("Active silences") }?.text ?? ""
                    #expect(listed.contains("s-1") && listed.contains("by alice"), "\(listed)")
                    #expect(!listed.contains("s-2") && !listed.contains("payroll"), "another route's silence: \(listed)")
                    _ = try await bob.send("POST", "/v1/conversations/group:oncall/messages",
                                           json: SendMessageRequest(text: "/unsilence s-2"))
                    try await world.awaitMessages("s-2 is not this group's") { messages in
                        messages.contains { $0.text == "No active silence s-2 of this group's alerts." }
                    }
                    #expect(!peer.received.contains { $0.method == .delete }, "nothing expired")
                }
            }
        }
    }
}
