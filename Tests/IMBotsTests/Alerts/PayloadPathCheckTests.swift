import Foundation
@testable import IMBots
import Testing

/// `check` follows `match:` paths into the route's payload as it follows template paths,
/// and holds every template of a webhook rule, its dedupe key included, to one convention:
/// the body is `payload`.
@Suite struct PayloadPathCheckTests {
    func errors(_ rules: String, format: String = "alertmanager") -> [String] {
        Bots.errors("""
            bot: alerts
            account: { username: alerts, password: secret-password }
            webhooks: [ { path: /hooks/am, format: \(format), secret: s } ]
            rules:
            \(rules)
            """)
    }

    @Test func aMisspelledMatchPathIsAnErrorAtItsPositionWithTheRightPath() {
        #expect(errors("""
              - name: critical
                when: { webhook: /hooks/am, match: { commonLabel.severity: critical, alerts.labls.instance: { regex: '^db' } } }
                do: [ { incident: { to: "group:oncall" } } ]
            """) == [
                "bot.yaml:6:42: unknown payload path 'commonLabel.severity' (did you mean 'commonLabels.severity'?): the "
                    + "body has no field 'commonLabel' (its fields: version, status, receiver, groupKey, truncatedAlerts, "
                    + "groupLabels.NAME, commonLabels.NAME, commonAnnotations.NAME, externalURL, fingerprints, alertKeys, "
                    + "firingCount, resolvedCount, notification_reason, alerts, firing, resolved)",
                "bot.yaml:6:74: unknown payload path 'alerts.labls.instance' (did you mean 'alerts.labels.instance'?): "
                    + "'alerts' has no field 'labls' (its fields: status, labels.NAME, annotations.NAME, startsAt, endsAt, "
                    + "generatorURL, fingerprint)",
            ])
    }

    @Test func goodPathsListPositionsAndJsonBodiesPass() {
        #expect(errors("""
              - name: critical
                when:
                  webhook: /hooks/am
                  match: { commonLabels.severity: critical, alerts.#1.labels.instance: db-7, status: firing, firing.annotations.summary: { present: true } }
                do: [ { incident: { to: "group:oncall" } } ]
            """) == [])
        #expect(errors("""
              - name: builds
                when: { webhook: /hooks/am, match: { build.anything.at.all: x } }
                do: [ { send: { to: "group:ops", text: "{{payload.build.id}}" } } ]
                dedupe: { key: "{{payload.build.id}}" }
            """, format: "json") == [])
    }

    @Test func aBareNumberInAMatchPathIsRefusedWithThePositionThatKeepsItsMeaning() {
        let found = errors("""
              - name: critical
                when: { webhook: /hooks/am, match: { alerts.0.labels.instance: db-7 } }
                do: [ { incident: { to: "group:oncall" } } ]
            """)
        #expect(found == ["bot.yaml:6:42: match path 'alerts.0.labels.instance': a list position is written '#N' and "
                          + "counts from 1, as in templates; '0' counted from 0: write 'alerts.#1.labels.instance'"],
                "\(found)")
    }

    @Test func payloadInAMatchPathIsRefusedWithTheConvention() {
        let found = errors("""
              - name: critical
                when: { webhook: /hooks/am, match: { payload.commonLabels.severity: critical } }
                do: [ { incident: { to: "group:oncall" } } ]
            """)
        #expect(found == ["bot.yaml:6:42: match paths start at the body: write 'commonLabels.severity' (without "
                          + "'payload.'; templates name the body 'payload', match does not)"], "\(found)")
    }

    @Test func aBodyFieldWithoutItsRootSuggestsPayloadInActionsAndInTheDedupeKey() {
        let found = errors("""
              - name: critical
                when: { webhook: /hooks/am }
                do: [ { send: { to: "group:oncall", text: "{{commonLabels.alertname}} fired" } } ]
                dedupe: { key: "{{groupKey}}/{{status}}" }
            """)
        #expect(found.count == 3, "\(found)")
        #expect(found.first?.hasPrefix("bot.yaml:7:48: unknown template variable 'commonLabels.alertname' (did you mean "
                                       + "'payload.commonLabels.alertname'?)") == true, "\(found)")
        #expect(found.dropFirst().allSatisfy { $0.hasPrefix("bot.yaml:8:20: dedupe.key: unknown template variable '") },
                "\(found)")
        #expect(found.contains { $0.contains("(did you mean 'payload.groupKey'?)") }, "\(found)")
        #expect(errors("""
              - name: builds
                when: { webhook: /hooks/am }
                do: [ { send: { to: "group:ops", text: "done" } } ]
                dedupe: { key: "{{build.id}}" }
            """, format: "json").first?.contains("(did you mean 'payload.build.id'?)") == true)
    }
}
