import Foundation
import IMClient
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// Alertmanager 0.25 as a PagerDuty and as a Slack sender, pointed at the runner:
    /// `pagerduty_configs` (`url` the runner's route, `routing_key` its secret) makes and
    /// closes a living incident; `slack_configs` (`api_url` the route followed by its
    /// secret) posts its firing and resolved messages; both through the durable inbox.
    @Suite("Alertmanager's PagerDuty and Slack receivers into the bridge", .serialized, .timeLimit(.minutes(5)))
    struct AlertmanagerPagerDutySlackTests {
        @Test func pagerDutyEventsMakeAndCloseTheLivingIncident() async throws {
            let bot = AlertWorld.bot(rules: """
                  - name: page
                    when: { webhook: /hooks/pagerduty }
                    do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
                """, webhooks: "  - { path: /hooks/pagerduty, format: pagerduty, secret: \(AlertWorld.token) }")
            try await withAlertWorld(bot: bot) { world in
                // The route answers as PagerDuty does, and refuses a wrong routing key.
                let wrong = try await world.post(
                    Data(#"{"routing_key":"guess","event_action":"resolve","dedup_key":"x"}"#.utf8), path: "/hooks/pagerduty",
                    token: nil)
                #expect(wrong.status == 401)
                let invalid = try await world.post(
                    Data(#"{"routing_key":"\#(AlertWorld.token)","event_action":"trigger"}"#.utf8),
                    path: "/hooks/pagerduty", token: nil)
                #expect(invalid.status == 400)
                let problem = try JSONSerialization.jsonObject(with: invalid.body) as? [String: Any]
                #expect(problem?["status"] as? String == "invalid event" && (problem?["errors"] as? [String])?.first?.contains("payload") == true)

                let cluster = try await AlertmanagerCluster.start(peers: 1, receiver: """
                    pagerduty_configs:
                      - url: 'http://127.0.0.1:\(world.port)/hooks/pagerduty'
                        routing_key: '\(AlertWorld.token)'
                        send_resolved: true
                    """)
                do {
                    try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7"], alertname: "DiskFull"))
                    let firing = try await world.awaitMessages("the incident opened") { $0.contains { $0.text.hasPrefix("🔥 FIRING") } }
                    let opened = try #require(firing.first { $0.text.hasPrefix("🔥 FIRING") })
                    #expect(opened.text.contains("DiskFull") && opened.text.contains("severity=error"), "\(opened.text)")
                    try await cluster.postToAll(
                        alerts: AlertmanagerCluster.alerts(["db-7"], alertname: "DiskFull", resolved: true))
                    try await world.awaitMessages("the incident closed") { messages in
                        messages.contains { $0.id == opened.id && $0.text.hasPrefix("✅ RESOLVED") }
                    }
                    let metrics = try await world.metrics()
                    #expect(metrics.contains(#"switchboard_webhook_requests_total{bot="alerts",path="/hooks/pagerduty",outcome="stored"}"#), "\(metrics)")
                } catch {
                    Issue.record("alertmanager logs:\n\(cluster.logs)")
                    await cluster.stop()
                    throw error
                }
                await cluster.stop()
            }
        }

        @Test func triggerAcknowledgeAndResolveMoveOneIncidentAnsweredAsPagerDutyAnswers() async throws {
            let bot = AlertWorld.bot(rules: """
                  - name: page
                    when: { webhook: /hooks/pagerduty }
                    do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
                """, webhooks: "  - { path: /hooks/pagerduty, format: pagerduty, secret: \(AlertWorld.token) }")
            try await withAlertWorld(bot: bot) { world in
                func event(_ action: String, _ extra: String = "") async throws -> [String: Any] {
                    let body = #"{"routing_key":"\#(AlertWorld.token)","event_action":"\#(action)","dedup_key":"disk/db-7"\#(extra)}"#
                    let answer = try await world.post(Data(body.utf8), path: "/hooks/pagerduty", token: nil)
                    #expect(answer.status == 202, "\(action): \(String(decoding: answer.body, as: UTF8.self))")
                    return try JSONSerialization.jsonObject(with: answer.body) as? [String: Any] ?? [:]
                }
                let payload = #","payload":{"summary":"Disk 97% full on db-7","source":"db-7","severity":"critical","custom_details":{"free":"3%"}},"client":"Nagios""#
                let triggered = try await event("trigger", payload)
                #expect(triggered["status"] as? String == "success" && triggered["message"] as? String == "Event processed")
                #expect(triggered["dedup_key"] as? String == "disk/db-7")
                let opened = try await world.awaitMessages("the incident opened") {
                    $0.contains { $0.text.hasPrefix("🔥 FIRING") && $0.text.contains("Disk 97% full on db-7") }
                }.first { $0.text.hasPrefix("🔥 FIRING") }
                let incident = try #require(opened)
                _ = try await event("acknowledge", #","client":"Nagios""#)
                try await world.awaitMessages("the incident acknowledged") { messages in
                    messages.contains { $0.id == incident.id && $0.text.contains("acknowledged by Nagios") }
                }
                _ = try await event("resolve")
                try await world.awaitMessages("the incident closed") { messages in
                    messages.contains { $0.id == incident.id && $0.text.hasPrefix("✅ RESOLVED") }
                }
            }
        }

        @Test func slackMessagesAreSentAsPlainText() async throws {
            let bot = AlertWorld.bot(rules: """
                  - name: relay
                    when: { webhook: /hooks/slack }
                    do: [ { send: { to: "group:oncall", text: "{{payload.username}}: {{payload.text}}" } } ]
                """, webhooks: "  - { path: /hooks/slack, format: slack, secret: \(AlertWorld.token) }")
            try await withAlertWorld(bot: bot) { world in
                let wrong = try await world.post(Data(#"{"text":"hi"}"#.utf8), path: "/hooks/slack/guess", token: nil)
                #expect(wrong.status == 401)
                let bare = try await world.post(Data(#"{"text":"hi"}"#.utf8), path: "/hooks/slack", token: nil)
                #expect(bare.status == 401)
                let taken = try await world.post(
                    Data(#"{"text":"*hello* from <https://ci.example|CI>","username":"ci"}"#.utf8),
                    path: "/hooks/slack/\(AlertWorld.token)", token: nil)
                #expect(taken.status == 200 && String(decoding: taken.body, as: UTF8.self) == "ok")
                try await world.awaitMessages("the curl message") { $0.contains { $0.text == "ci: hello from CI (https://ci.example)" } }

                let cluster = try await AlertmanagerCluster.start(peers: 1, receiver: """
                    slack_configs:
                      - api_url: 'http://127.0.0.1:\(world.port)/hooks/slack/\(AlertWorld.token)'
                        channel: '#oncall'
                        username: 'alertmanager'
                        send_resolved: true
                    """)
                do {
                    try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7"], alertname: "DiskFull"))
                    let firing = try await world.awaitMessages("the firing message") {
                        $0.contains { $0.text.hasPrefix("alertmanager: [FIRING:1] DiskFull") }
                    }
                    #expect(firing.allSatisfy { !$0.text.contains("<") && !$0.text.contains("*") }, "\(firing.map(\.text))")
                    try await cluster.postToAll(
                        alerts: AlertmanagerCluster.alerts(["db-7"], alertname: "DiskFull", resolved: true))
                    try await world.awaitMessages("the resolved message") {
                        $0.contains { $0.text.hasPrefix("alertmanager: [RESOLVED] DiskFull") }
                    }
                } catch {
                    Issue.record("alertmanager logs:\n\(cluster.logs)")
                    await cluster.stop()
                    throw error
                }
                await cluster.stop()
            }
        }
    }
}
