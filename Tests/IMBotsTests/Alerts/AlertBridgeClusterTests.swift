import Foundation
import HTTPServer
@testable import IMBots
import IMClient
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// The issue's end-to-end test: two real Alertmanagers clustered on loopback, both
    /// pointed at the runner, a group member silencing from chat.
    @Suite(.timeLimit(.minutes(5))) struct AlertBridgeClusterTests {
        @Test func anHAPairDeliversTwiceTheGroupGetsOneMessageResolvedInPlaceAndSilencesComeFromChat() async throws {
            // A gate in front of the runner holds each notification until its twin has
            // come: Alertmanager logs a delivery only once answered, so both peers deliver.
            try await withAlertCluster(twins: 2, routeOptions: "    silence_role: owner") { world, cluster in
                try await exercise(world, cluster)
            }
        }

        func exercise(_ world: AlertWorld, _ cluster: AlertmanagerCluster) async throws {
            func count(_ outcome: String) async throws -> Int {
                let prefix = #"switchboard_webhook_requests_total{bot="alerts",path="/hooks/alertmanager",outcome="\#(outcome)"} "#
                let line = try await world.metrics().split(separator: "\n").first { $0.hasPrefix(prefix) }
                return line.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
            }
            try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7", "db-9"], alertname: "DiskFull"))
            let posted = try await world.awaitMessages("the living message") { $0.count == 1 }
            try await eventually("both peers' POSTs", hangGuard: .seconds(60)) {
                try await count("stored") + count("duplicate") == 2
            }
            #expect(try await count("stored") == 1, "two POSTs received, one stored")
            #expect(try await count("duplicate") == 1)
            let living = posted[0]
            #expect(living.text.hasPrefix("🔥 FIRING: DiskFull\n2 firing"))
            #expect(try await world.botMessages().count == 1, "one message for two POSTs")

            // /silence from chat, in reply to the alert: a preview, then /confirm.
            try await world.alice.say("/silence 2h deploying the fix", replyTo: living.id)
            let preview = try await world.awaitMessages("the preview") { messages in
                messages.contains { $0.text.hasPrefix("Silence for 2h with matchers:") }
            }.first { $0.text.hasPrefix("Silence for 2h") }?.text ?? ""
            #expect(preview.contains(#"alertname="DiskFull""#))
            #expect(preview.contains("It mutes 2 alerts of this incident: db-7, db-9."), "asked of Alertmanager: \(preview)")
            try await world.alice.say("/confirm")
            let created = try await world.awaitMessages("the silence") { messages in
                messages.contains { $0.text.hasPrefix("🔕 Silenced until") }
            }.first { $0.text.hasPrefix("🔕 Silenced until") }?.text ?? ""
            let id = try #require(created.range(of: "(id ").map { created[$0.upperBound...].prefix { $0 != ";" } })
            for peer in cluster.peers {
                let one = try AlertmanagerClient(peers: [peer.url], transport: cluster.http)
                try await poll("the silence in GET /api/v2/silences on \(peer.url)") {
                    try await one.silences().contains {
                        $0.id == String(id) && $0.createdBy == "alice" && $0.comment == "deploying the fix"
                            && $0.matchers == [SilenceMatcher(name: "alertname", value: "DiskFull")]
                    }
                }
            }
            try await world.alice.say("/silences")
            try await world.awaitMessages("the list") { messages in
                messages.contains { $0.text.hasPrefix("Active silences of this group's alerts:") && $0.text.contains(String(id)) }
            }
            try await world.alice.say("/unsilence \(id)")
            try await world.awaitMessages("expired") { messages in
                messages.contains { $0.text.hasPrefix("🔔 Silence \(id) expired.") }
            }
            for peer in cluster.peers {
                let one = try AlertmanagerClient(peers: [peer.url], transport: cluster.http)
                try await poll("the silence expired on \(peer.url)") { try await !one.silences().contains { $0.id == String(id) } }
            }

            // Resolved by both peers: the message is edited in place and the reply added.
            try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7", "db-9"], alertname: "DiskFull",
                                                                           resolved: true))
            let resolved = try await world.awaitMessages("resolved") { messages in
                messages.contains { $0.text == "✅ all resolved: DiskFull" }
            }
            #expect(resolved[0].id == living.id)
            #expect(resolved[0].text.hasPrefix("✅ RESOLVED: DiskFull\n0 firing · 2 resolved"))
            #expect(resolved.first { $0.text == "✅ all resolved: DiskFull" }?.replyTo == living.id)
            try await eventually("both peers' resolved POSTs", hangGuard: .seconds(60)) {
                try await count("stored") + count("duplicate") == 4
            }
            #expect(try await count("stored") == 2)
            #expect(try await count("duplicate") == 2)
        }
    }
}
