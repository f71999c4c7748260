import Foundation
import HTTPServer
import IMBots
import IMClient
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// The bridge's pure parts against two real Alertmanagers clustered on loopback; one
    /// test at a time with the other server suites, so that the whole run never has two
    /// Alertmanager pairs up at once.
    @Suite("Alert bridge with a real Alertmanager pair", .serialized)
    struct AlertmanagerClusterTests {
        static let token = "test-token-\(UInt64.random(in: 0...UInt64.max))"

        /// Starts a receiver and a clustered pair pointed at it; stops both after `body`.
        func withCluster(twins: Int, _ body: (AlertmanagerCluster, WebhookReceiver) async throws -> Void) async throws {
            let receiver = try WebhookReceiver(twins: twins)
            let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: receiver)
            try server.start()
            let cluster = try await AlertmanagerCluster.start(
                webhookURL: "http://127.0.0.1:\(server.port)/hooks/alertmanager", bearerToken: Self.token)
            do {
                try await body(cluster, receiver)
            } catch {
                Issue.record("\(error)\n\(cluster.logs)")
            }
            await cluster.stop()
            await server.shutdown()
        }

        static func alerts(resolved: Bool = false) -> [[String: Any]] {
            AlertmanagerCluster.alerts(["db-7", "db-9"], alertname: "DiskFull", resolved: resolved)
        }

        /// What the runner will do with each received webhook: check the secret, decode,
        /// dedupe, fold into the incident. Returns the effects of the admitted ones.
        struct Bridge {
            let dedupe: DedupeKey
            var seen: SeenSet
            var incidents = IncidentTracker(policy: IncidentPolicy(flapHold: .zero))
            let auth = WebhookAuth.bearer(token: AlertmanagerClusterTests.token)
            let time = ManualTime()
            var admitted = 0

            init() throws {
                dedupe = try DedupeKey()
                seen = SeenSet(lifetime: dedupe.lifetime)
            }

            mutating func deliver(_ request: Request) throws -> [IncidentEffect] {
                try auth.verify(headers: request.headers, body: request.body, nowMilliseconds: time.wallMilliseconds)
                let payload = try WebhookFormat.alertmanager.decode(request.body)
                guard seen.insert(dedupe.key(for: payload), now: time.wallMilliseconds), let notification = payload.notification
                else { return [] }
                admitted += 1
                let effects = incidents.receive(notification, now: time.wallMilliseconds)
                for case .post(let key, _, _) in effects {
                    incidents.recordPosted(groupKey: key, messageID: MessageID(rawValue: 1))
                }
                return effects
            }
        }

        @Test("an HA pair delivers each notification twice; dedupe folds the twins into one incident update, resolve included")
        func haPairDedupe() async throws {
            try await withCluster(twins: 2) { cluster, receiver in
                try await cluster.postToAll(alerts: Self.alerts())
                let firing = try await receiver.waitForRequests(2)
                #expect(firing.count == 2, "both peers delivered the firing notification")

                // Each copy must be the whole group: a copy with fewer alerts is a different
                // notification (Alertmanager flushed the group between the alerts of one POST),
                // which the bridge is right to admit as new.
                for request in firing {
                    let instances = try WebhookFormat.alertmanager.decode(request.body).notification?.alerts
                        .compactMap { $0.labels["instance"] }.sorted()
                    #expect(instances == ["db-7", "db-9"], "Alertmanager split the group: \(cluster.logs)")
                }
                var bridge = try Bridge()
                var effects: [IncidentEffect] = []
                for request in firing {
                    #expect(request.path == "/hooks/alertmanager")
                    #expect(request.headers["User-Agent"]?.hasPrefix("Alertmanager/") == true)
                    effects += try bridge.deliver(request)
                }
                #expect(bridge.admitted == 1, "the twin was folded")
                #expect(effects.count == 1)
                guard case .post(_, _, let text)? = effects.first else {
                    Issue.record("expected one post, got \(effects)")
                    return
                }
                #expect(text.contains("🔥 FIRING: DiskFull"))
                #expect(text.contains("2 firing"))
                #expect(text.contains("db-7") && text.contains("db-9"))

                // Resolve: the same alerts with one end for both.
                try await cluster.postToAll(alerts: Self.alerts(resolved: true))
                let all = try await receiver.waitForRequests(4)
                #expect(all.count == 4, "both peers delivered the resolved notification")
                var resolvedEffects: [IncidentEffect] = []
                for request in all.dropFirst(2) {
                    let status = try WebhookFormat.alertmanager.decode(request.body).notification?.status
                    #expect(status == .resolved)
                    resolvedEffects += try bridge.deliver(request)
                }
                #expect(bridge.admitted == 2)
                #expect(resolvedEffects.count == 2, "one edit and one reply: \(resolvedEffects)")
                guard case .edit(_, let id, let edited)? = resolvedEffects.first else {
                    Issue.record("expected an edit, got \(resolvedEffects)")
                    return
                }
                #expect(id == MessageID(rawValue: 1))
                #expect(edited.hasPrefix("✅ RESOLVED: DiskFull"))
                #expect(resolvedEffects.last == .reply(groupKey: try #require(bridge.incidents.book.incidents.keys.first),
                                                       to: MessageID(rawValue: 1), text: "✅ all resolved: DiskFull"))
            }
        }

        @Test("a silence created through the client is reported by both peers, mutes the group, and expires")
        func silenceFromChat() async throws {
            try await withCluster(twins: 1) { cluster, receiver in
                try await cluster.postToAll(alerts: Self.alerts())
                let delivered = try await receiver.waitForRequests(1)
                var bridge = try Bridge()
                _ = try bridge.deliver(delivered[0])
                let incident = try #require(bridge.incidents.book.incidents.values.first)

                let command = try AlertCommand.parse("/silence 2h deploying the fix")
                guard case .silence(let duration, _, let reason)? = command else {
                    Issue.record("parsed \(String(describing: command))")
                    return
                }
                let draft = try #require(SilenceDraft(incident: incident, duration: duration, reason: reason,
                                                      proposedBy: "alice", now: Timestamp.now().milliseconds))
                #expect(draft.preview.contains(#"alertname="DiskFull""#))

                let client = try AlertmanagerClient(peers: cluster.peers.map(\.url), transport: cluster.http)
                let muted = try await client.alerts(matching: draft.matchers)
                #expect(Set(muted.compactMap { $0.labels["instance"] }) == ["db-7", "db-9"], "the alerts it will mute")

                let id = try await client.createSilence(draft.request(now: Timestamp.now().milliseconds))
                for peer in cluster.peers {
                    let one = try AlertmanagerClient(peers: [peer.url], transport: cluster.http)
                    try await poll("the silence on \(peer.url)") {
                        try await one.silences().contains { $0.id == id && $0.comment == "deploying the fix" && $0.createdBy == "alice" }
                    }
                }
                try await poll("the group's alerts silenced") {
                    try await client.alerts(matching: draft.matchers).allSatisfy { $0.status.silencedBy.contains(id) }
                }

                try await client.expireSilence(id: id)
                for peer in cluster.peers {
                    let one = try AlertmanagerClient(peers: [peer.url], transport: cluster.http)
                    try await poll("the silence expired on \(peer.url)") {
                        try await !one.silences().contains { $0.id == id }
                    }
                }
            }
        }

        @Test("a peer that is down is skipped: the other one takes the silence")
        func failover() async throws {
            try await withCluster(twins: 1) { cluster, _ in
                let down = try LoopbackSocket()  // bound, not listening: connections are refused
                defer { close(down.descriptor) }
                let client = try AlertmanagerClient(peers: ["http://127.0.0.1:\(down.port)", cluster.peers[1].url],
                                                    transport: cluster.http)
                let request = SilenceRequest(matchers: [SilenceMatcher(name: "alertname", value: "Nothing")],
                                             start: Timestamp.now(), duration: .seconds(600), createdBy: "bob", comment: "failover")
                let id = try await client.createSilence(request)
                #expect(try await client.silences().contains { $0.id == id })
            }
        }
    }
}
