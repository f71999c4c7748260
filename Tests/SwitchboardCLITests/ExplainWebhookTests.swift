import Foundation
import Testing

/// `switchboard explain --webhook PATH --payload FILE`: which match: entries held, with
/// the values seen, and what the bridge would post, without a server.
@Suite("switchboard explain --webhook")
struct ExplainWebhookTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let firing = repository.deletingLastPathComponent().appendingPathComponent("shared/testdata/alertmanager/firing.json").path

    @Test func theShippedBridgeRoutesACriticalAlertToOncallAndSaysWhyNotToAlerts() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let result = await sandbox.run(["explain", "--file", Self.repository.appendingPathComponent("bots/alerts.yaml").path,
                                        "--webhook", "/hooks/alertmanager", "--payload", Self.firing,
                                        "--at", "2026-11-29T16:00:00Z"])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.outputLines
        #expect(lines.contains("critical: fired — every match: entry holds"), "\(lines)")
        #expect(lines.contains("    ✓ commonLabels.severity in [critical, page]: saw 'critical'"), "\(lines)")
        #expect(lines.contains("warnings: not matched — match: commonLabels.severity equals 'warning' does not hold"),
                "\(lines)")
        #expect(lines.contains("    ✗ commonLabels.severity equals 'warning': saw 'critical'"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("dedupe: critical: key {{payload.groupKey}}/{{payload.status}}/"
                                              + "{{payload.alertKeys}} = '{}:{alertname=\"DiskFull\"}/firing/") }, "\(lines)")
        #expect(lines.contains("  critical: post the living message in group:oncall:"), "\(lines)")
        #expect(lines.contains("      🔥 FIRING: DiskFull"), "\(lines)")
        #expect(lines.contains("      • db-7: disk 97% full on db-7"), "\(lines)")
    }

    @Test func theBotServingThePathIsFoundAndABadBodyOrPathIsRefused() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "runner: { bots: bots }\n")
        try sandbox.write("bots/builds.yaml", """
            bot: builds
            account: { username: builds, password: secret-password }
            webhooks: [ { path: /hooks/ci, format: json, secret: s } ]
            rules:
              - name: failed
                when: { webhook: /hooks/ci, match: { status: failed, build.branch: main } }
                do: [ { send: { to: "group:dev", text: "build {{payload.build.id}} failed on main" } } ]
                dedupe: { key: "{{payload.build.id}}" }
            """)
        let payload = try sandbox.write("ci.json", #"{"status":"failed","build":{"id":42,"branch":"main"}}"#)
        let found = await sandbox.run(["explain", "--config", config, "--webhook", "/hooks/ci", "--payload", payload])
        #expect(found.status == 0, "\(found.errors)")
        #expect(found.outputLines.contains("    ✓ build.branch equals 'main': saw 'main'"), "\(found.outputLines)")
        #expect(found.outputLines.contains("  failed: send to group:dev: build 42 failed on main"), "\(found.outputLines)")

        let bad = try sandbox.write("bad.json", "{not json")
        let refused = await sandbox.run(["explain", "--config", config, "--webhook", "/hooks/ci", "--payload", bad])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("the payload does not read as a json notification: the body is not valid JSON"),
                "\(refused.errors)")
        let unknown = await sandbox.run(["explain", "--config", config, "--webhook", "/hooks/nope", "--payload", payload])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("no bot serves /hooks/nope; served: /hooks/ci (builds)"), "\(unknown.errors)")
    }
}
