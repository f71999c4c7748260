import Foundation
@testable import IMBots
import IMProtocol
import TestSupport
import Testing

/// `webhooks:` and webhook rules in bot files: what loads, and every problem `check`
/// reports with its position.
@Suite("Webhook rules in bot files")
struct WebhookConfigTests {
    static let header = """
        bot: alerts
        account: { username: alerts, password: secret-password }
        webhooks:
          - path: /hooks/alertmanager
            format: alertmanager
            secret: t0ken
            alertmanager: [http://127.0.0.1:9093]
          - { path: /hooks/build, format: json, secret: b-t0ken }
        rules:

        """

    func load(_ rules: String) throws -> BotDefinition {
        try Bots.load(Self.header + rules)
    }

    func errors(_ rules: String) -> [String] {
        Bots.errors(Self.header + rules)
    }

    @Test("webhook rules load with their routes, matches and dedupe keys; feed events never fire them")
    func loads() throws {
        let bot = try load("""
              - name: critical
                when: { webhook: /hooks/alertmanager, match: { commonLabels.severity: [critical, page] } }
                do: [ { incident: { to: "group:oncall", flap_hold: 1m, line: "{{alert.labels.instance}}" } } ]
              - name: builds
                when: { webhook: /hooks/build, match: { build.status: failed } }
                dedupe: { key: "{{payload.build.id}}", for: 10m }
                do: [ { send: { to: "group:ci", text: "build {{payload.build.id}} failed" } } ]
              - name: watchdog
                when: { webhook: /hooks/alertmanager, match: { commonLabels.alertname: Watchdog }, quiet: 5m }
                do: [ { incident: { to: "group:oncall" } } ]
            """)
        #expect(bot.webhooks.map(\.path) == ["/hooks/alertmanager", "/hooks/build"])
        #expect(bot.webhook(path: "/hooks/alertmanager")?.alertmanagers == ["http://127.0.0.1:9093"])
        #expect(bot.webhook(path: "/hooks/alertmanager")?.silenceRole == .admin)
        #expect(bot.dedupe["critical"]?.template.source == DedupeKey.defaultAlertSource, "alert routes dedupe by default")
        #expect(bot.dedupe["builds"]?.lifetime == .seconds(600))
        #expect(bot.dedupe["watchdog"] == nil, "a dead-man's switch fires on silence, not on payloads")
        #expect(bot.rule(named: "watchdog")?.webhook?.quiet == .seconds(300))
        #expect(Bots.fired(bot, Bots.message("hello")) == [], "no message fires a webhook rule")

        let payload = try WebhookFormat.alertmanager.decode(try AlertFixtures.body("alertmanager/firing.json"))
        let event = BotEvent.webhook(path: "/hooks/alertmanager", payload: payload, number: 1, scope: "w1",
                                     at: Timestamp(milliseconds: 0))
        let decision = RuleEngine(bot: bot).decide(event, context: Bots.context(bot))
        #expect(decision.firings.map(\.rule.name) == ["critical"])
    }

    @Test("a webhook rule names a served path, does what a webhook can, and reads its format's fields to the leaf")
    func problems() throws {
        let rules = """
              - name: unknown-path
                when: { webhook: /hooks/alertmanger }
                do: [ { incident: { to: "group:oncall" } } ]
              - name: feed-actions
                when: { webhook: /hooks/alertmanager }
                do: [ { reply: "hi" }, { send: "no address" } ]
              - name: wrong-fields
                when: { webhook: /hooks/alertmanager }
                do:
                  - send: { to: "group:oncall", text: "{{payload.commonLabel.severity}} {{payload.alerts.1.labls.x}}" }
                  - incident: { to: "group:oncall", title: "{{incident.nope}}", line: "{{labels.instance}}" }
              - name: json-incident
                when: { webhook: /hooks/build }
                do: [ { incident: { to: "group:ci" } } ]
              - name: json-dedupe
                when: { webhook: /hooks/build }
                dedupe: { for: 1h }
                do: [ { send: { to: "group:ci", text: "{{payload.anything.goes}}" } } ]
              - name: feed-dedupe
                when: { text: hello }
                dedupe: { for: 1h }
                do: [ { incident: { to: "group:oncall" } } ]
              - name: mixed
                when: { webhook: /hooks/alertmanager, text: hello }
                do: [ { stop: true } ]
              - name: orphan-match
                when: { match: { status: firing } }
                do: [ { stop: true } ]
            """
        let found = errors(rules)
        func has(_ text: String) -> Bool { found.contains { $0.contains(text) } }
        #expect(has("takes webhooks on /hooks/alertmanger, which no webhooks entry serves (did you mean '/hooks/alertmanager'?)"), "\(found)")
        #expect(has("'reply' cannot run for a webhook"))
        #expect(has("send needs to:"))
        #expect(has("unknown template variable 'payload.commonLabel.severity' (did you mean 'payload.commonLabels'?)"))
        #expect(has("unknown template variable 'payload.alerts.1.labls.x' (did you mean 'payload.alerts.1.labels'?)"))
        #expect(has("unknown template variable 'incident.nope': 'incident' has no field 'nope'"))
        #expect(has("unknown template variable 'labels.instance' (known: alert)"), "a line reads alert.*")
        #expect(has("'incident' needs an alert route"))
        #expect(has("dedupe on a json route needs a key"))
        #expect(!has("payload.anything.goes"), "a json body's fields are not known before it comes")
        #expect(has("dedupe applies to webhook rules only"))
        #expect(has("'incident' runs in webhook rules only"))
        #expect(has("holds only webhook, match and quiet"))
        #expect(has("'match' needs 'webhook: PATH'"))
        // Every line carries its position.
        #expect(found.allSatisfy { $0.hasPrefix("bot.yaml:") && $0.split(separator: ":").count >= 4 }, "\(found)")
        let lines = (Self.header + rules).split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains("payload.commonLabel.severity") }) + 1
        let column = try #require(lines[line - 1].range(of: "{{payload.commonLabel")).lowerBound.utf16Offset(in: lines[line - 1]) + 1
        let unknown = found.first { $0.contains("payload.commonLabel.severity") } ?? ""
        #expect(unknown.hasPrefix("bot.yaml:\(line):\(column):"), "at the tag inside the line: \(unknown)")
    }

    @Test("the old 'absent_for' is refused at its value with the 'quiet' to write instead")
    func absentForIsRefused() throws {
        let rules = """
              - name: watchdog
                when: { webhook: /hooks/alertmanager, match: { commonLabels.alertname: Watchdog }, absent_for: 5m }
                do: [ { incident: { to: "group:oncall" } } ]
            """
        let found = errors(rules)
        let lines = (Self.header + rules).split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains("absent_for") }) + 1
        let column = try #require(lines[line - 1].range(of: "5m }")).lowerBound.utf16Offset(in: lines[line - 1]) + 1
        #expect(found == ["bot.yaml:\(line):\(column): 'absent_for' is spelled 'quiet' now, as in every rule that waits "
                          + "for nothing to come: write 'quiet: 5m'"], "\(found)")
    }

    @Test("webhooks entries: an empty secret is generated by the runner, a missing one is refused")
    func secrets() throws {
        let generated = try Bots.load("""
            bot: alerts
            account: { username: alerts, password: secret-password }
            webhooks:
              - { path: /hooks/alertmanager, format: alertmanager, secret: "${ALERT_TOKEN:-}", max_body: 256KiB, silence_role: member }
            rules:
              - { name: all, when: { webhook: /hooks/alertmanager }, do: [ { incident: { to: "group:oncall" } } ] }
            """)
        let endpoint = try #require(generated.webhooks.first)
        #expect(endpoint.generatesSecret)
        #expect(endpoint.secretVariable == "ALERT_TOKEN")
        #expect(endpoint.maxBodyBytes == 256 * 1024)
        #expect(endpoint.silenceRole == .member)
        #expect(endpoint.serving(secret: "abc").auth == .bearer(token: "abc"))

        let missing = Bots.errors("""
            bot: alerts
            account: { username: alerts, password: secret-password }
            webhooks:
              - { path: /hooks/alertmanager, format: alertmanager }
              - { path: /hooks/alertmanager, format: alertmanager, secret: s, silence_role: boss, max_body: 1GiB }
            rules: []
            """)
        #expect(missing.contains { $0.contains("needs a secret") }, "\(missing)")
        #expect(missing.contains { $0.contains("silence_role 'boss'") })
        #expect(missing.contains { $0.contains("max_body '1GiB'") })
    }

    @Test("two bots of one runner cannot serve one path")
    func sharedPath() throws {
        let folder = TestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["a", "b"] {
            try """
                bot: \(name)
                account: { username: \(name), password: secret-password }
                webhooks: [ { path: /hooks/x, format: json, secret: s } ]
                rules: []
                """.write(toFile: folder + "/\(name).yaml", atomically: true, encoding: .utf8)
        }
        let catalog = BotCatalog.read(folder: folder, environment: [:])
        #expect(catalog.bots.map(\.name) == ["a"])
        #expect(catalog.problems == ["\(folder)/b.yaml: webhook path /hooks/x is also served by bot 'a' in \(folder)/a.yaml"])
    }

    @Test("the shipped bots/alerts.yaml loads: critical to group:oncall, warnings to group:alerts, silences from chat")
    func shippedBot() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let path = repository.appendingPathComponent("bots/alerts.yaml").path
        let bot = try BotLoader.load(file: path, environment: [:])
        let endpoint = try #require(bot.webhook(path: "/hooks/alertmanager"))
        #expect(endpoint.generatesSecret, "no secret is shipped")
        #expect(!endpoint.alertmanagers.isEmpty)
        #expect(bot.join == [.group("oncall"), .group("alerts")])
        func target(_ rule: String) -> String? {
            guard case .incident(let spec)? = bot.rule(named: rule)?.actions.first?.spec else { return nil }
            return spec.to.text.source
        }
        #expect(target("critical") == "group:oncall")
        #expect(target("warnings") == "group:alerts")
    }
}
