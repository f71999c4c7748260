import Foundation
import HTTPServer
@testable import IMBots
import IMProtocol
import Templates
import TestSupport
import Testing

/// `format: pagerduty` (Events API v2) and `format: slack` (incoming webhooks), decoded
/// and checked as the bridge reads them.
@Suite struct PagerDutyFormatTests {
    static func event(_ fields: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
    }

    static var trigger: [String: Any] { [
        "routing_key": "r0uting-key", "event_action": "trigger", "dedup_key": "disk/db-7",
        "payload": [
            "summary": "Disk 97% full on db-7", "source": "db-7", "severity": "critical", "component": "postgres",
            "group": "storage", "class": "disk", "timestamp": "2026-01-05T09:00:00.000+0000",
            "custom_details": ["used": "97%", "mounts": ["/", "/var"]],
        ] as [String: Any],
        "links": [["href": "https://grafana.example/d/1", "text": "dashboard"]],
        "client": "Alertmanager", "client_url": "https://am.example",
    ] }

    @Test func aTriggerIsAFiringNotificationOfOneAlertKeyedByItsDedupKey() throws {
        let payload = try WebhookFormat.pagerduty.decode(Self.event(Self.trigger))
        let notification = try #require(payload.notification)
        #expect(notification.status == .firing && notification.groupKey == "pagerduty/disk/db-7")
        let alert = try #require(notification.alerts.first)
        #expect(notification.alerts.count == 1)
        #expect(alert.labels == ["alertname": "Disk 97% full on db-7", "severity": "critical", "instance": "db-7",
                                 "component": "postgres", "group": "storage", "class": "disk"])
        #expect(alert.annotations["used"] == "97%" && alert.annotations["mounts"] == #"["/","/var"]"#)
        #expect(alert.generatorURL == "https://grafana.example/d/1" && alert.startsAt != nil)
        // Templates see PagerDuty's own names beside the alert view; never the routing key.
        guard case .object(let value) = payload.templateValue else { throw TestFailure("not an object") }
        #expect(value["event_action"] == .string("trigger") && value["dedup_key"] == .string("disk/db-7"))
        #expect(value["routing_key"] == nil)
        guard case .object(let details)? = value["payload"] else { throw TestFailure("no payload") }
        #expect(details["summary"] == .string("Disk 97% full on db-7"))
        #expect(value["firingCount"] == .int(1))
    }

    @Test func resolveAndAcknowledgeNameTheIncident() throws {
        let resolve = try #require(try WebhookFormat.pagerduty.decode(Self.event(
            ["routing_key": "k", "event_action": "resolve", "dedup_key": "disk/db-7"])).notification)
        #expect(resolve.status == .resolved && resolve.identityOnly == true)
        let firing = try #require(try WebhookFormat.pagerduty.decode(Self.event(Self.trigger)).notification)
        #expect(resolve.alerts.first?.fingerprint == firing.alerts.first?.fingerprint)
        let ack = try #require(try WebhookFormat.pagerduty.decode(Self.event(
            ["routing_key": "k", "event_action": "acknowledge", "dedup_key": "disk/db-7", "client": "Nagios"])).notification)
        #expect(ack.alerts.isEmpty && ack.acknowledgedBy == "Nagios")
    }

    @Test func theLivingIncidentOpensIsAcknowledgedAndClosesWithoutLosingWhatItShows() throws {
        var tracker = IncidentTracker(policy: IncidentPolicy(flapHold: .zero))
        func receive(_ fields: [String: Any], at now: Int64) throws -> [IncidentEffect] {
            tracker.receive(try #require(try WebhookFormat.pagerduty.decode(Self.event(fields)).notification), now: now)
        }
        let opened = try receive(Self.trigger, at: 1_000)
        guard case .post(let key, _, let text)? = opened.first else { throw TestFailure("\(opened)") }
        #expect(text.hasPrefix("🔥 FIRING: Disk 97% full on db-7"))
        tracker.recordPosted(groupKey: key, messageID: MessageID(rawValue: 7))
        let acknowledged = try receive(["routing_key": "k", "event_action": "acknowledge", "dedup_key": "disk/db-7"], at: 2_000)
        guard case .edit(_, _, let ackText)? = acknowledged.first else { throw TestFailure("\(acknowledged)") }
        #expect(ackText.contains("acknowledged by PagerDuty") && ackText.contains("Disk 97% full on db-7"))
        let closed = try receive(["routing_key": "k", "event_action": "resolve", "dedup_key": "disk/db-7"], at: 3_000)
        guard case .edit(_, _, let closedText)? = closed.first else { throw TestFailure("\(closed)") }
        #expect(closedText.hasPrefix("✅ RESOLVED: Disk 97% full on db-7"), "\(closedText)")
        // An acknowledge of an incident never seen opens none.
        #expect(try receive(["routing_key": "k", "event_action": "acknowledge", "dedup_key": "other"], at: 4_000).isEmpty)
    }

    @Test(arguments: [
        (#"{"routing_key":"k","event_action":"trigger"}"#, "payload"),
        (#"{"routing_key":"k","event_action":"snooze","dedup_key":"x"}"#, "event_action"),
        (#"{"routing_key":"k","event_action":"resolve"}"#, "dedup_key"),
        (#"{"routing_key":"k","event_action":"trigger","payload":{"summary":"s","source":"x","severity":"urgent"}}"#,
         "payload.severity"),
        (#"{"routing_key":"k","event_action":"trigger","payload":{"summary":"s","severity":"info"}}"#, "payload.source"),
        (#"{"event_action":"trigger"}"#, "routing_key"),
        (#"{"routing_key":"k","event_action":"resolve","dedup_key":"\#(String(repeating: "k", count: 256))"}"#, "dedup_key"),
        (#"{"routing_key":"k","event_action":"trigger","payload":{"summary":"\#(String(repeating: "s", count: 1025))","source":"x","severity":"info"}}"#,
         "payload.summary"),
    ])
    func anInvalidEventNamesItsField(_ body: String, _ field: String) {
        do {
            _ = try WebhookFormat.pagerduty.decode(Data(body.utf8))
            Issue.record("\(body) was taken")
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }

    @Test func aTriggerWithoutADedupKeyGetsOneFromItsBody() throws {
        var fields = Self.trigger
        fields["dedup_key"] = nil
        let first = try #require(try WebhookFormat.pagerduty.decode(Self.event(fields)).notification)
        let again = try #require(try WebhookFormat.pagerduty.decode(Self.event(fields)).notification)
        #expect(first.groupKey == again.groupKey && first.groupKey.count > "pagerduty/".count + 8)
    }

    @Test func theRoutingKeyIsTheSecret() throws {
        let auth = WebhookAuth.usual(for: .pagerduty, secret: "r0uting-key")
        try auth.verify(headers: [:], body: Self.event(Self.trigger), nowMilliseconds: 0)
        var wrong = Self.trigger
        wrong["routing_key"] = "guess"
        #expect(throws: WebhookAuthError.self) { try auth.verify(headers: [:], body: Self.event(wrong), nowMilliseconds: 0) }
        #expect(throws: WebhookAuthError.self) { try auth.verify(headers: [:], body: Data("{}".utf8), nowMilliseconds: 0) }
    }
}

@Suite struct SlackFormatTests {
    static func render(_ fields: [String: Any]) throws -> String {
        let body = try JSONSerialization.data(withJSONObject: fields)
        guard case .object(let value) = try WebhookFormat.slack.decode(body).templateValue,
              case .string(let text)? = value["text"]
        else { throw TestFailure("no text") }
        return text
    }

    @Test func textIsMrkdwnReadAsPlainText() throws {
        #expect(try Self.render(["text": "*Deploy* of <https://ci.example/1|build 1> by <@U12|alice>: _done_ &amp; 2*3 <!here>"])
                == "Deploy of build 1 (https://ci.example/1) by @alice: done & 2*3 @here")
        #expect(try Self.render(["text": "see <https://x.example>"]) == "see https://x.example")
    }

    @Test func blocksAreRenderedInOrder() throws {
        let blocks: [[String: Any]] = [
            ["type": "header", "text": ["type": "plain_text", "text": "Incident 42"]],
            ["type": "section", "text": ["type": "mrkdwn", "text": "*db-7* is down"],
             "fields": [["type": "mrkdwn", "text": "*Severity:* critical"], ["type": "plain_text", "text": "Team: storage"]]],
            ["type": "divider"],
            ["type": "context", "elements": [["type": "mrkdwn", "text": "from Grafana"]]],
            ["type": "rich_text", "elements": [
                ["type": "rich_text_section", "elements": [["type": "text", "text": "runbook: "],
                                                           ["type": "link", "url": "https://wiki.example/db"]]],
                ["type": "rich_text_list", "style": "bullet", "elements": [
                    ["type": "rich_text_section", "elements": [["type": "text", "text": "restart"]]]]],
            ]],
            ["type": "actions", "elements": [["type": "button", "text": ["type": "plain_text", "text": "Ack"]]]],
        ]
        #expect(try Self.render(["blocks": blocks]) == """
            Incident 42
            db-7 is down
            Severity: critical
            Team: storage
            ---
            from Grafana
            runbook: https://wiki.example/db
            • restart
            """)
    }

    @Test func attachmentsAsAlertmanagerSendsThem() throws {
        let attachments: [[String: Any]] = [[
            "color": "danger", "title": "[FIRING:1] DiskFull (db-7)", "title_link": "http://am.example/#/alerts",
            "pretext": "", "text": "*Summary:* disk 97% full", "fallback": "[FIRING:1] DiskFull",
            "fields": [["title": "Priority", "value": "P1", "short": true]], "footer": "Alertmanager",
            "mrkdwn_in": ["fallback", "pretext", "text"],
        ]]
        #expect(try Self.render(["channel": "#oncall", "username": "AlertManager", "attachments": attachments]) == """
            [FIRING:1] DiskFull (db-7) (http://am.example/#/alerts)
            Summary: disk 97% full
            Priority: P1
            Alertmanager
            """)
        #expect(try Self.render(["attachments": [["fallback": "only this"]]]) == "only this")
    }

    @Test func aMessageWithNothingToShowIsRefused() {
        for body in [#"{}"#, #"{"text":""}"#, #"{"attachments":[]}"#, #"{"blocks":"no"}"#] {
            #expect(throws: AlertPayloadError.self) { _ = try WebhookFormat.slack.decode(Data(body.utf8)) }
        }
    }

    @Test func theSecretIsTheURLsLastSegmentOrABearerToken() throws {
        let auth = WebhookAuth.usual(for: .slack, secret: "s3cret")
        try auth.verify(headers: [:], body: Data(), nowMilliseconds: 0, pathSecret: "s3cret")
        try auth.verify(headers: ["Authorization": "Bearer s3cret"], body: Data(), nowMilliseconds: 0)
        #expect(throws: WebhookAuthError.self) { try auth.verify(headers: [:], body: Data(), nowMilliseconds: 0, pathSecret: "guess") }
        #expect(throws: WebhookAuthError.self) { try auth.verify(headers: [:], body: Data(), nowMilliseconds: 0) }
    }

    @Test func defaultDedupeKeysAndTimes() throws {
        #expect(DedupeKey.defaultLifetime(for: .slack) == .seconds(60))
        #expect(DedupeKey.defaultLifetime(for: .pagerduty) == .seconds(60))
        let key = try DedupeKey(source: try #require(DedupeKey.defaultSource(for: .pagerduty)))
        let trigger = try WebhookFormat.pagerduty.decode(PagerDutyFormatTests.event(PagerDutyFormatTests.trigger))
        var ackFields = PagerDutyFormatTests.trigger
        ackFields["event_action"] = "acknowledge"
        let ack = try WebhookFormat.pagerduty.decode(PagerDutyFormatTests.event(ackFields))
        #expect(key.key(for: trigger) != key.key(for: ack), "an acknowledge is not its trigger's repeat")
        #expect(key.key(for: trigger) == key.key(for: try WebhookFormat.pagerduty.decode(
            PagerDutyFormatTests.event(PagerDutyFormatTests.trigger))))
        var otherFields = PagerDutyFormatTests.trigger
        otherFields["dedup_key"] = "another/incident"
        let other = try WebhookFormat.pagerduty.decode(PagerDutyFormatTests.event(otherFields))
        #expect(key.key(for: trigger) != key.key(for: other), "another incident is no repeat")
        let slackKey = try DedupeKey(source: try #require(DedupeKey.defaultSource(for: .slack)))
        let first = try WebhookFormat.slack.decode(Data(##"{"text":"disk full","channel":"#a"}"##.utf8))
        let second = try WebhookFormat.slack.decode(Data(##"{"text":"disk fine","channel":"#a"}"##.utf8))
        #expect(slackKey.key(for: first) != slackKey.key(for: second), "another text is no repeat")
    }
}

/// `check` knows what the two formats' rules may read and do.
@Suite struct PagerDutySlackCheckTests {
    @Test func checkFollowsTheirFieldsAndRefusesAnIncidentOfASlackMessage() {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            webhooks:
              - { path: /hooks/slack, format: slack, secret: s3cret-token }
              - { path: /hooks/pd, format: pagerduty, secret: r0uting-key-xyz }
            rules:
              - { name: s, when: { webhook: /hooks/slack }, do: [ { send: { to: "group:x", text: "{{payload.txt}}" } } ] }
              - { name: p, when: { webhook: /hooks/pd }, do: [ { send: { to: "group:x", text: "{{payload.payload.sumary}}" } } ] }
              - { name: i, when: { webhook: /hooks/slack }, do: [ { incident: { to: "group:x" } } ] }
              - { name: ok, when: { webhook: /hooks/pd }, do: [ { incident: { to: "group:x" } }, { send: { to: "group:x", text: "{{payload.event_action}} {{payload.commonLabels.severity}}" } } ] }
            """)
        #expect(errors.count == 3, "\(errors)")
        #expect(errors.contains { $0.contains("payload.txt") && $0.contains("payload.text") }, "\(errors)")
        #expect(errors.contains { $0.contains("payload.payload.sumary") && $0.contains("payload.payload.summary") }, "\(errors)")
        #expect(errors.contains { $0.contains("'incident' needs an alert route") && $0.contains("slack") }, "\(errors)")
    }
}
