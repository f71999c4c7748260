import Foundation
import HTTPServer
@testable import IMBots
import IMProtocol
import Lifecycle
import Synchronization
import TestSupport
import Testing

extension ServerSuites {
    /// Reconciling on the runner's clock, against a peer that answers `GET
    /// /api/v2/alerts` as the test says: `/refresh` at once, the route's `reconcile:`
    /// period, a silence's end, and `/resolve` by hand (recorded in the audit log, with who).
    @Suite(.timeLimit(.minutes(3))) struct AlertReconcileTests {
        /// What the fake peer holds: the instances still firing.
        final class Held: Sendable {
            let instances = Mutex<[String]>(["db-7", "db-9"])

            var body: Data {
                let alerts = instances.withLock { $0 }.map { name in
                    #"{"fingerprint":"fp-\#(name)","labels":{"alertname":"DiskFull","instance":"\#(name)"},"#
                        + #""status":{"state":"active","silencedBy":[],"inhibitedBy":[]}}"#
                }
                return Data(("[" + alerts.joined(separator: ",") + "]").utf8)
            }
        }

        @Test func refreshNowThePeriodLaterAndResolveByHand() async throws {
            let held = Held()
            try await withEndpoint({ request, _ in
                request.path == "/api/v2/alerts"
                    ? Response(status: 200, headers: ["Content-Type": "application/json"], body: held.body)
                    : Response(status: 404)
            }) { peer in
                let time = ManualTime(wallMilliseconds: SystemTime().wallMilliseconds)
                let webhooks = """
                      - { path: /hooks/alertmanager, format: alertmanager, secret: \(AlertWorld.token), alertmanager: ["http://127.0.0.1:\(peer.port)"], silence_role: owner, reconcile: 5m }
                    """
                try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks),
                                         time: time) { world in
                    try await exercise(world, held, time)
                }
            }
        }

        /// A silence made from chat ends on its own (no `/unsilence`, no period): a few
        /// seconds after its end the bridge asks the peer, and alerts gone meanwhile resolve.
        @Test func aSilenceThatEndsOnItsOwnIsFollowedByACheck() async throws {
            let held = Held()
            try await withEndpoint({ request, _ in
                switch (request.method.rawValue, request.path) {
                case ("GET", "/api/v2/alerts"):
                    Response(status: 200, headers: ["Content-Type": "application/json"], body: held.body)
                case ("POST", "/api/v2/silences"):
                    Response(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"silenceID":"s-1"}"#.utf8))
                case ("GET", "/api/v2/silences"):
                    Response(status: 200, headers: ["Content-Type": "application/json"], body: Data("[]".utf8))
                default: Response(status: 404)
                }
            }) { peer in
                let time = ManualTime(wallMilliseconds: SystemTime().wallMilliseconds)
                let webhooks = """
                      - { path: /hooks/alertmanager, format: alertmanager, secret: \(AlertWorld.token), alertmanager: ["http://127.0.0.1:\(peer.port)"], silence_role: owner, reconcile: off }
                    """
                try await withAlertWorld(bot: AlertWorld.bot(rules: AlertWorld.incidentRule, webhooks: webhooks),
                                         time: time) { world in
                    #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing), ("db-9", .firing)])).status == 200)
                    let living = try #require(try await world.awaitMessages("posted") { $0.count == 1 }.first)
                    try await world.alice.say("/silence 1h maintenance", replyTo: living.id)
                    try await world.awaitMessages("the preview") { messages in
                        messages.contains { $0.text.hasPrefix("Silence for 1h with matchers:") }
                    }
                    try await world.alice.say("/confirm")
                    try await world.awaitMessages("the silence shown") { messages in
                        messages.contains { $0.id == living.id && $0.text.contains("🔕 silenced by alice until ") }
                    }
                    // Both resolve while silenced; Alertmanager says nothing, and nobody lifts it.
                    held.instances.withLock { $0 = [] }
                    let messages = try await world.awaitMessages("resolved after the silence's end") { messages in
                        time.advance(by: .seconds(600))
                        return messages.contains { $0.id == living.id && $0.text.hasPrefix("✅ RESOLVED: DiskFull") }
                            && messages.contains { $0.text.hasPrefix("✅ all resolved") }
                    }
                    let text = try #require(messages.first { $0.id == living.id }?.text)
                    #expect(text.hasPrefix("✅ RESOLVED: DiskFull\n0 firing · 2 resolved · resolved while silenced"), "\(text)")
                    #expect(messages.contains { $0.text == "✅ all resolved while silenced: DiskFull" && $0.replyTo == living.id })
                }
            }
        }

        func exercise(_ world: AlertWorld, _ held: Held, _ time: ManualTime) async throws {
            #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing), ("db-9", .firing)])).status == 200)
            let living = try #require(try await world.awaitMessages("posted") { $0.count == 1 }.first)

            // db-7 is gone from Alertmanager: /refresh finds it at once.
            held.instances.withLock { $0 = ["db-9"] }
            try await world.alice.say("/refresh")
            var messages = try await world.awaitMessages("refreshed") { messages in
                messages.contains { $0.text == "Asked Alertmanager about 1 open incident: 1 alert had resolved "
                    + "and is shown resolved now." }
            }
            #expect(messages.first { $0.id == living.id }?.text.contains("1 firing · 1 resolved") == true)
            #expect(messages.contains { $0.text == "✅ resolved (no longer in Alertmanager): db-7" })

            // db-9 goes too: the route's period finds it without a command.
            held.instances.withLock { $0 = [] }
            messages = try await world.awaitMessages("the period") { messages in
                time.advance(by: .seconds(61))
                return messages.contains { $0.id == living.id && $0.text.hasPrefix("✅ RESOLVED: DiskFull") }
            }
            #expect(messages.first { $0.id == living.id }?.text
                .hasPrefix("✅ RESOLVED: DiskFull\n0 firing · 2 resolved · no longer in Alertmanager") == true)

            // Another group, closed by hand.
            held.instances.withLock { $0 = ["cpu-1"] }
            #expect(try await world.post(AlertBodies.diskFull([("cpu-1", .firing)], groupKey: "cpu",
                                                               alertname: "CPUHigh")).status == 200)
            let cpu = try #require(try await world.awaitMessages("the cpu incident") { messages in
                messages.contains { $0.text.hasPrefix("🔥 FIRING: CPUHigh") }
            }.first { $0.text.hasPrefix("🔥 FIRING: CPUHigh") })
            try await world.alice.say("/resolve", replyTo: cpu.id)
            messages = try await world.awaitMessages("closed by hand") { messages in
                messages.contains { $0.id == cpu.id && $0.text.contains("closed by alice") }
                    && messages.contains { $0.text.hasPrefix("✅ Closed by hand by alice.") }
            }
            #expect(messages.first { $0.id == cpu.id }?.text.hasPrefix("✅ RESOLVED: CPUHigh\n0 firing · 1 resolved") == true)
            try await world.alice.say("/resolve", replyTo: cpu.id)
            try await world.awaitMessages("closed already") { messages in
                messages.contains { $0.text == "That incident is closed already." }
            }
            let audit = try String(contentsOfFile: world.fixture.state + "/audit.log", encoding: .utf8)
            #expect(audit.contains(#""action":"resolve""#) && audit.contains("by alice: closed the incident of cpu"),
                    "\(audit)")
        }
    }
}
