import Foundation
import HTTPServer
@testable import IMBots
import IMClient
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// Issue 26 §2 against the real Alertmanager pair: alerts that resolve while silenced
    /// get no resolved notification (the pair is configured with `send_resolved: false`
    /// here, so none can come by another way), and the living message still says resolved
    /// once the silence is lifted from chat, because the bridge asks both peers.
    @Suite(.timeLimit(.minutes(5))) struct StaleIncidentClusterTests {
        @Test func fireSilenceFromChatResolveWhileSilencedUnsilenceAndTheMessageSaysResolved() async throws {
            try await withAlertCluster(sendResolved: false, routeOptions: "    silence_role: owner\n    reconcile: off") { world, cluster in
                try await exercise(world, cluster)
            }
        }

        func exercise(_ world: AlertWorld, _ cluster: AlertmanagerCluster) async throws {
            try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7", "db-9"], alertname: "DiskFull"))
            let living = try #require(try await world.awaitMessages("the living message") { $0.count == 1 }.first)
            #expect(living.text.hasPrefix("🔥 FIRING: DiskFull\n2 firing"))

            // Silenced from chat: the living message shows who and until when.
            try await world.alice.say("/silence 1h db maintenance", replyTo: living.id)
            try await world.awaitMessages("the preview") { messages in
                messages.contains { $0.text.hasPrefix("Silence for 1h with matchers:") }
            }
            try await world.alice.say("/confirm")
            let created = try await world.awaitMessages("the silence") { messages in
                messages.contains { $0.text.hasPrefix("🔕 Silenced until") }
                    && messages.contains { $0.id == living.id && $0.text.contains("🔕 silenced by alice until ") }
            }.first { $0.text.hasPrefix("🔕 Silenced until") }?.text ?? ""
            let id = try #require(created.range(of: "(id ").map { created[$0.upperBound...].prefix { $0 != ";" } })

            // Resolved while silenced: Alertmanager drops them and sends nothing.
            try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7", "db-9"], alertname: "DiskFull",
                                                                           resolved: true))
            for peer in cluster.peers {
                try await poll("the resolved alerts gone from \(peer.url)") {
                    try await cluster.alerts(named: "DiskFull", on: peer) == 0
                }
            }
            #expect(try await world.botMessages().first { $0.id == living.id }?.text.hasPrefix("🔥 FIRING") == true,
                    "nothing told the bridge yet")

            // Lifted from chat: the bridge asks both peers, and the message says resolved.
            try await world.alice.say("/unsilence \(id)")
            let resolved = try await world.awaitMessages("resolved in place, with a reply, and the command answered") { messages in
                messages.contains { $0.id == living.id && $0.text.hasPrefix("✅ RESOLVED: DiskFull") }
                    && messages.contains { $0.text.hasPrefix("✅ all resolved") }
                    && messages.contains { $0.text.hasPrefix("🔔 Silence") }
            }
            let message = try #require(resolved.first { $0.id == living.id }?.text)
            #expect(message.hasPrefix("✅ RESOLVED: DiskFull\n0 firing · 2 resolved · resolved while silenced"), "\(message)")
            #expect(!message.contains("🔕"))
            #expect(resolved.contains { $0.text == "✅ all resolved while silenced: DiskFull" && $0.replyTo == living.id })
            #expect(resolved.contains { $0.text == "🔔 Silence \(id) expired. 2 alerts had resolved while silenced." },
                    "\(resolved.map(\.text))")
        }
    }
}
