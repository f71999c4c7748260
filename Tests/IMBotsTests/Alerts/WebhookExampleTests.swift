import Foundation
@testable import IMBots
import Testing

/// A webhook rule's `examples:`: payloads inline or from files, run through the bridge's
/// own rules offline, one notification after another, each with the incident it leaves.
@Suite struct WebhookExampleTests {
    static let firing = AlertFixtures.root.appendingPathComponent("alertmanager/firing.json").path
    static let resolved = AlertFixtures.root.appendingPathComponent("alertmanager/resolved.json").path

    func results(_ rules: String) async throws -> [String] {
        let bot = try Bots.load("""
            bot: alerts
            account: { username: alerts, password: secret-password }
            webhooks: [ { path: /hooks/am, format: alertmanager, secret: s } ]
            rules:
            \(rules)
            """)
        return await ExampleRunner.run(bot: bot).map(\.description)
    }

    /// One alert of the `DiskFull` group as an inline payload writes it.
    static func inline(_ instances: [(String, String)], severity: String = "critical") -> String {
        let firing = instances.contains { $0.1 == "firing" }
        let alerts = instances.map { name, status in
            """
            { status: \(status), labels: { alertname: DiskFull, instance: \(name), severity: \(severity) },
                                  annotations: { summary: "disk full on \(name)" }, startsAt: "2026-01-05T09:00:00Z",
                                  fingerprint: fp-\(name) }
            """
        }.joined(separator: ", ")
        return """
            { version: "4", status: \(firing ? "firing" : "resolved"), groupKey: "g-disk",
                                groupLabels: { alertname: DiskFull }, commonLabels: { alertname: DiskFull, severity: \(severity) },
                                alerts: [\(alerts)] }
            """
    }

    @Test func aPayloadFromAFileOpensTheIncidentItExpects() async throws {
        let found = try await results("""
              - name: critical
                when: { webhook: /hooks/am, match: { commonLabels.severity: critical } }
                do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
                examples:
                  - payload_file: \(Self.firing)
                    expect:
                      incident:
                        to: "group:oncall"
                        group: '{}:{alertname="DiskFull"}'
                        title: DiskFull
                        state: firing
                        firing: 2
                        lines: ["• db-7: disk 97% full on db-7", "• db-9: disk 95% full on db-9"]
                  - payload_file: \(Self.firing)
                    expect: { incident: { title: DiskFul, state: resolved } }
            """)
        #expect(found == [
                "bot.yaml:9:9: rule 'critical' example 1: passed",
                "bot.yaml:18:9: rule 'critical' example 2: failed: expected incident title \"DiskFul\", got \"DiskFull\" "
                    + "(first difference at character 8); expected incident state \"resolved\", got \"firing\" "
                    + "(first difference at character 1)",
            ], "\(found)")
    }

    @Test func aSequenceFiresResolvesOneThenAllAndFoldsTheHATwin() async throws {
        let found = try await results("""
              - name: critical
                when: { webhook: /hooks/am }
                do: [ { incident: { to: "group:oncall", flap_hold: 5m } } ]
                examples:
                  - notifications:
                      - payload: \(Self.inline([("db-7", "firing"), ("db-9", "firing")]))
                        expect: { incident: { state: firing, firing: 2, resolved: 0 } }
                      - payload: \(Self.inline([("db-7", "firing"), ("db-9", "firing")]))
                        expect: nothing
                      - payload: \(Self.inline([("db-7", "resolved"), ("db-9", "firing")]))
                        after: 1m
                        expect: { incident: { state: firing, firing: 2 } }
                      - after: 5m
                        expect: { incident: { firing: 1, resolved: 1, replies: ["✅ resolved: db-7"] } }
                      - payload: \(Self.inline([("db-7", "resolved"), ("db-9", "resolved")]))
                        after: 10m
                        expect: { incident: { state: firing, firing: 1 } }
                      - after: 5m
                        expect:
                          incident:
                            state: resolved
                            lines: ["✓ db-7: disk full on db-7", "✓ db-9: disk full on db-9"]
                            replies: ["✅ all resolved: DiskFull"]
            """)
        #expect(found == ["bot.yaml:9:9: rule 'critical' example 1: passed"], "\(found)")
    }

    @Test func aNotificationNoRuleTakesExpectsNothingAndSendsAreCompared() async throws {
        let lines = try await results("""
              - name: critical
                when: { webhook: /hooks/am, match: { commonLabels.severity: critical } }
                do: [ { send: { to: "group:oncall", text: "{{payload.commonLabels.alertname}} is {{payload.status}}" } } ]
                examples:
                  - payload: \(Self.inline([("db-7", "firing")], severity: "warning"))
                    expect: nothing
                  - payload: \(Self.inline([("db-7", "firing")]))
                    expect: { send: { to: "group:oncall", text: "DiskFull is firing" } }
                  - payload: \(Self.inline([("db-7", "firing")]))
                    expect: nothing
            """)
        #expect(lines.count == 3)
        #expect(lines[0].hasSuffix("example 1: passed"), "\(lines)")
        #expect(lines[1].hasSuffix("example 2: passed"), "\(lines)")
        #expect(lines[2].hasSuffix("example 3: failed: expected nothing, but the bot would: send to group:oncall "
                                   + "\"DiskFull is firing\" (rules fired: critical)"), "\(lines)")
    }

    /// Grafana's body as it arrives (a file) and a plain JSON body (inline) on their own routes.
    @Test func grafanaAndJsonBodiesAreExamplesToo() async throws {
        let grafana = AlertFixtures.root.appendingPathComponent("grafana/firing.json").path
        let bot = try Bots.load("""
            bot: alerts
            account: { username: alerts, password: secret-password }
            webhooks:
              - { path: /hooks/grafana, format: grafana, secret: s }
              - { path: /hooks/build, format: json, secret: s }
            rules:
              - name: memory
                when: { webhook: /hooks/grafana, match: { commonLabels.team: infra } }
                do: [ { incident: { to: "group:infra", flap_hold: 0s } } ]
                examples:
                  - payload_file: \(grafana)
                    expect: { incident: { to: "group:infra", title: Memory pressure, state: firing, firing: 2 } }
              - name: build
                when: { webhook: /hooks/build, match: { status: failed } }
                dedupe: { key: "{{payload.id}}" }
                do: [ { send: { to: "group:ci", text: "build {{payload.id}} failed on {{payload.branch}}" } } ]
                examples:
                  - payload: { id: 41, status: failed, branch: main }
                    expect: { send: { to: "group:ci", text: "build 41 failed on main" } }
                  - payload: { id: 42, status: passed, branch: main }
                    expect: nothing
            """)
        let found = await ExampleRunner.run(bot: bot).map(\.description)
        #expect(found.count == 3 && found.allSatisfy { $0.hasSuffix(": passed") }, "\(found)")
    }

    @Test func aDeadMansSwitchFiresWhenItsNotificationStaysAway() async throws {
        let found = try await results("""
              - name: alert-path
                when: { webhook: /hooks/am, match: { commonLabels.alertname: Watchdog }, quiet: 5m }
                do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
                examples:
                  - notifications:
                      - { after: 4m, expect: nothing }
                      - after: 2m
                        expect: { incident: { state: firing, title: DeadMansSwitch, group: "deadman:alert-path" } }
            """)
        #expect(found == ["bot.yaml:9:9: rule 'alert-path' example 1: passed"], "\(found)")
    }

    @Test func payloadsThatDoNotReadAsTheRoutesFormatAreCheckErrorsAtTheirPosition() {
        let errors = Bots.errors("""
            bot: alerts
            account: { username: alerts, password: secret-password }
            webhooks: [ { path: /hooks/am, format: alertmanager, secret: s } ]
            rules:
              - name: critical
                when: { webhook: /hooks/am }
                do: [ { incident: { to: "group:oncall" } } ]
                examples:
                  - payload: { version: "4", status: firing }
                    expect: nothing
                  - payload_file: no-such-file.json
                    expect: nothing
                  - { from: alice, text: hi, expect: nothing }
              - name: feed
                do: [ { reply: hi } ]
                examples:
                  - { payload: { a: 1 }, expect: nothing }
            """)
        #expect(errors == [
            "bot.yaml:9:18: the payload (inline payload) does not read as a alertmanager notification: "
                + "alerts is missing",
            "bot.yaml:11:23: payload_file 'no-such-file.json' cannot be read (looked for "
                + URL(fileURLWithPath: Bots.directory).appendingPathComponent("no-such-file.json").path + ")",
            "bot.yaml:13:9: a webhook rule's example sends a notification: give payload (the body, inline) or "
                + "payload_file (a file next to the bot file) with expect, or notifications",
            "bot.yaml:17:9: a payload example is for a webhook rule (when: { webhook: PATH }); this rule takes feed "
                + "events: give from and text (or event)",
        ], "\(errors)")
    }
}
