#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPServer
@testable import IMBots
import IMClient
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// Issue 26's first newcomer bot file, end to end: the real Alertmanager pair in front
    /// of a real runner process (`switchboard run`) against a real server. Critical alerts
    /// go to group:oncall and warnings to group:alerts, a Watchdog dead-man's switch fires
    /// while nothing arrives and resolves when it does, and the on-call group silences from
    /// chat with matchers, lists and lifts the silence. The file's examples pass offline.
    @Suite(.timeLimit(.minutes(5))) struct NewcomerAlertBridgeTests {
        static func bot(peers: [String]) -> String {
            """
            bot: alerts
            account: { username: alerts, password: \(AlertWorld.botPassword) }
            join: ["group:oncall", "group:alerts"]
            limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
            webhooks:
              - path: /hooks/alertmanager
                format: alertmanager
                secret: \(AlertWorld.token)
                alertmanager: [\(peers.map { "\"\($0)\"" }.joined(separator: ", "))]
                silence_role: member
            rules:
              - name: alert-path
                when: { webhook: /hooks/alertmanager, match: { commonLabels.alertname: Watchdog }, quiet: 3s }
                do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
                examples:
                  - notifications:
                      - { after: 2s, expect: nothing }
                      - { after: 2s, expect: { incident: { title: DeadMansSwitch, state: firing } } }
              - name: watchdog
                when: { webhook: /hooks/alertmanager, match: { commonLabels.alertname: Watchdog } }
                do: [ { stop: true } ]
              - name: critical
                when: { webhook: /hooks/alertmanager, match: { commonLabels.severity: [critical, page] } }
                do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
                examples:
                  - payload: { version: "4", status: firing, groupKey: g, commonLabels: { severity: critical }, alerts: [ { status: firing, labels: { alertname: A, instance: a-1 } } ] }
                    expect: { incident: { to: "group:oncall", lines: ["• a-1"] } }
              - name: warnings
                when: { webhook: /hooks/alertmanager, match: { commonLabels.severity: warning } }
                do: [ { incident: { to: "group:alerts", flap_hold: 0s } } ]
            """
        }

        @Test func severityRoutingTheWatchdogSwitchAndChatSilencesWithARunnerProcess() async throws {
            let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
            try await withBotsFolder { server, fixture, _ in
                try await server.createAccount("alerts", password: AlertWorld.botPassword, bot: true)
                let (alice, _) = try await server.client.register("alice")
                for group in ["oncall", "alerts"] {
                    _ = try await alice.send("POST", "/v1/groups", json: CreateConversationRequest(name: group))
                    _ = try await alice.send("POST", "/v1/groups/\(group)/invites", json: GroupInviteRequest(user: "alerts"))
                }
                let gate = try WebhookReceiver(twins: 1)
                let gateServer = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: gate)
                try gateServer.start()
                let cluster = try await AlertmanagerCluster.start(
                    webhookURL: "http://127.0.0.1:\(gateServer.port)/hooks/alertmanager", bearerToken: AlertWorld.token)
                let file = Self.bot(peers: cluster.peers.map(\.url))
                try fixture.write(file, as: "alerts.yaml")
                #expect(await ExampleRunner.run(bot: try Bots.load(file)).allSatisfy { $0.passed }, "the file's examples")
                let config = try fixture.processConfig(server: server.baseURL)
                let runner = try SpawnedProcess(binary, ["run", "--config", config])
                do {
                    gate.target = "http://127.0.0.1:\(try await runner.runnerListenerPort())"
                    try await exercise(alice, cluster, runner)
                    #expect(try await runner.stop(SIGTERM) == 0, "\(runner.errors)")
                } catch {
                    Issue.record("\(error)\n\(runner.errors.suffix(3000))\n\(cluster.logs)")
                    if runner.exitStatus == nil { _ = try? await runner.stop(SIGKILL) }
                }
                await cluster.stop()
                await gateServer.shutdown()
            }
        }

        func exercise(_ alice: TestClient, _ cluster: AlertmanagerCluster, _ runner: SpawnedProcess) async throws {
            func messages(_ group: String) async throws -> [Message] {
                try await alice.get("/v1/conversations/group:\(group)/messages?limit=200").decode(MessagePage.self)
                    .messages.filter { $0.sender == "alerts" && $0.type != .system }.reversed()
            }
            func waitIn(_ group: String, _ what: String, _ condition: @escaping ([Message]) -> Bool) async throws
                -> [Message] {
                var last: [Message] = []
                do {
                    try await eventually(what, hangGuard: .seconds(90)) {
                        last = try await messages(group)
                        return condition(last)
                    }
                } catch {
                    throw TestFailure("\(error); group:\(group) has \(last.map(\.text))")
                }
                return last
            }

            // Nothing came on the alert path for 3 s: the dead-man's switch fires in group:oncall.
            let deadman = try await waitIn("oncall", "the dead-man's switch") { messages in
                messages.contains { $0.text.hasPrefix("🔥 FIRING: DeadMansSwitch") }
            }.first { $0.text.hasPrefix("🔥 FIRING: DeadMansSwitch") }
            // The Watchdog arrives: the switch resolves, in place.
            try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["am"], alertname: "Watchdog", severity: "none"))
            try await waitIn("oncall", "the switch resolved") { messages in
                messages.contains { $0.id == deadman?.id && $0.text.hasPrefix("✅ RESOLVED: DeadMansSwitch") }
            }

            // Severity routing: critical to group:oncall, warning to group:alerts.
            try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7", "db-9"], alertname: "DiskFull"))
            try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["api-2"], alertname: "CPUHigh",
                                                                           severity: "warning"))
            let disk = try #require(try await waitIn("oncall", "DiskFull in group:oncall") { messages in
                messages.contains { $0.text.hasPrefix("🔥 FIRING: DiskFull\n2 firing") }
            }.first { $0.text.hasPrefix("🔥 FIRING: DiskFull") })
            try await waitIn("alerts", "CPUHigh in group:alerts") { messages in
                messages.contains { $0.text.hasPrefix("🔥 FIRING: CPUHigh") }
            }
            #expect(try await messages("oncall").allSatisfy { !$0.text.contains("CPUHigh") })

            // Silenced from chat, for one instance.
            try await alice.say("/silence 1h instance=db-7 rebuilding db-7", replyTo: disk.id)
            let preview = try await waitIn("oncall", "the preview") { messages in
                messages.contains { $0.text.hasPrefix("Silence for 1h with matchers:") }
            }.first { $0.text.hasPrefix("Silence for 1h") }?.text ?? ""
            #expect(preview.contains(#"alertname="DiskFull""#) && preview.contains(#"instance="db-7""#), "\(preview)")
            #expect(preview.contains("It mutes 1 alert of this incident: db-7."), "\(preview)")
            try await alice.say("/confirm")
            let created = try await waitIn("oncall", "the silence") { messages in
                messages.contains { $0.text.hasPrefix("🔕 Silenced until") }
                    && messages.contains { $0.id == disk.id && $0.text.contains("🔕 silenced by alice until ") }
            }.first { $0.text.hasPrefix("🔕 Silenced until") }?.text ?? ""
            let id = try #require(created.range(of: "(id ").map { String(created[$0.upperBound...].prefix { $0 != ";" }) })
            for peer in cluster.peers {
                let one = try AlertmanagerClient(peers: [peer.url], transport: cluster.http)
                try await poll("the silence on \(peer.url)") {
                    try await one.silences().contains {
                        $0.id == id && $0.createdBy == "alice" && $0.comment == "rebuilding db-7"
                            && $0.matchers.contains(SilenceMatcher(name: "instance", value: "db-7"))
                    }
                }
            }
            try await alice.say("/silences")
            try await waitIn("oncall", "the list") { messages in
                messages.contains { $0.text.hasPrefix("Active silences of this group's alerts:") && $0.text.contains(id) }
            }
            try await alice.say("/unsilence \(id)")
            try await waitIn("oncall", "lifted") { messages in
                messages.contains { $0.text.hasPrefix("🔔 Silence \(id) expired.") }
            }
            #expect(runner.errors.contains("/confirm by alice in group:oncall: silence \(id)"), "audited")
        }
    }
}
