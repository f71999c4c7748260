import Foundation
import IMBots
import IMProtocol
import Templates
import Testing

@Suite("Webhook payloads")
struct PayloadDecodingTests {
    @Test("Alertmanager's real firing body decodes into typed fields")
    func alertmanagerFiring() throws {
        let notification = try AlertFixtures.notification("alertmanager/firing.json")
        #expect(notification.version == "4")
        #expect(notification.status == .firing)
        #expect(notification.receiver == "chat")
        #expect(notification.groupKey == "{}:{alertname=\"DiskFull\"}")
        #expect(notification.groupLabels == ["alertname": "DiskFull"])
        #expect(notification.commonLabels["severity"] == "critical")
        #expect(notification.commonAnnotations.isEmpty)
        #expect(notification.externalURL == "http://vm:19093")
        #expect(notification.truncatedAlerts == 0)
        #expect(notification.alerts.count == 2)
        let first = notification.alerts[0]
        #expect(first.labels["instance"] == "db-7")
        #expect(first.annotations["summary"] == "disk 97% full on db-7")
        #expect(first.fingerprint == "02a477a5517b55ce")
        #expect(first.generatorURL == "http://prometheus.example/graph?g0.expr=disk")
        #expect(first.startsAt == Timestamp(rfc3339: "2026-11-29T15:54:40.466Z"))
        #expect(first.endsAt == nil, "Go's zero time means no end yet")
        #expect(first.grafana == nil)
        #expect(notification.fingerprints == ["017f954e1b371ec4", "02a477a5517b55ce"])
    }

    @Test("Alertmanager's real resolved body carries the end times")
    func alertmanagerResolved() throws {
        let notification = try AlertFixtures.notification("alertmanager/resolved.json")
        #expect(notification.status == .resolved)
        #expect(notification.alerts.allSatisfy { $0.status == .resolved })
        #expect(notification.alerts[0].endsAt == Timestamp(rfc3339: "2026-11-29T15:54:43Z"))
    }

    @Test("Grafana's real bodies decode with its additions")
    func grafana() throws {
        let firing = try AlertFixtures.notification("grafana/firing.json", format: .grafana)
        #expect(firing.version == "1")
        #expect(firing.grafana?.title == "[FIRING:2] Memory pressure Servers (infra)")
        #expect(firing.grafana?.state == "alerting")
        #expect(firing.grafana?.orgId == 1)
        #expect(firing.grafana?.message.hasPrefix("**Firing**") == true)
        let alert = firing.alerts[0]
        #expect(alert.grafana?.values == ["A": 93.71, "C": 1])
        #expect(alert.grafana?.silenceURL.contains("matcher=zone%3Deu-1") == true)
        #expect(alert.grafana?.dashboardURL == "https://grafana.example.com/d/node01?orgId=1")
        #expect(alert.grafana?.panelURL.hasSuffix("viewPanel=4") == true)
        #expect(alert.grafana?.imageURL == "")
        #expect(alert.grafana?.orgId == 1)
        let resolved = try AlertFixtures.notification("grafana/resolved.json", format: .grafana)
        #expect(resolved.status == .resolved)
        #expect(resolved.grafana?.state == "ok")
        #expect(resolved.groupKey == firing.groupKey)
    }

    @Test("notification_reason is read when present")
    func notificationReason() throws {
        var text = String(decoding: try AlertFixtures.body("alertmanager/firing.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"version\": \"4\",", with: "\"version\": \"4\", \"notification_reason\": \"repeat\",")
        let notification = try #require(try WebhookFormat.alertmanager.decode(Data(text.utf8)).notification)
        #expect(notification.notificationReason == "repeat")
        #expect(notification.templateValue["notification_reason"] == "repeat")
    }

    @Test("a missing fingerprint is derived from the labels, the same for the same labels")
    func derivedFingerprint() throws {
        let body = AlertFixtures.json("""
            {"version":"4","status":"firing","groupKey":"g","alerts":[
              {"status":"firing","labels":{"a":"1","b":"2"}},{"status":"firing","labels":{"b":"2","a":"1"}}]}
            """)
        let notification = try #require(try WebhookFormat.alertmanager.decode(body).notification)
        #expect(notification.alerts[0].fingerprint.count == 16)
        #expect(notification.alerts[0].fingerprint == notification.alerts[1].fingerprint)
    }

    static let badBodies: [(String, String, AlertPayloadError.Code, String?, String)] = [
        ("not JSON", "{\"version\":", .invalidJSON, nil, "not valid JSON"),
        ("empty", "", .invalidJSON, nil, "empty"),
        ("an array", "[]", .invalidField, nil, "the body must be a JSON object"),
        ("no groupKey", #"{"version":"4","status":"firing","alerts":[]}"#, .missingField, "groupKey", "groupKey is missing"),
        ("no alerts", #"{"version":"4","status":"firing","groupKey":"g"}"#, .missingField, "alerts", "alerts is missing"),
        ("bad status", #"{"version":"4","status":"burning","groupKey":"g","alerts":[]}"#, .invalidField, "status", "'firing' or 'resolved'"),
        ("wrong version", #"{"version":"3","status":"firing","groupKey":"g","alerts":[]}"#, .unsupportedVersion, "version", "reads version 4"),
        ("label not a string",
         #"{"version":"4","status":"firing","groupKey":"g","alerts":[{"status":"firing","labels":{}},{"status":"firing","labels":{"instance":7}}]}"#,
         .invalidField, "alerts[1].labels.instance", "alerts[1].labels.instance must be a string, got a number"),
        ("bad time",
         #"{"version":"4","status":"firing","groupKey":"g","alerts":[{"status":"firing","labels":{},"startsAt":"yesterday"}]}"#,
         .invalidField, "alerts[0].startsAt", "RFC 3339"),
        ("alerts not a list", #"{"version":"4","status":"firing","groupKey":"g","alerts":{}}"#, .invalidField, "alerts", "alerts must be a list"),
        ("negative truncation", #"{"version":"4","status":"firing","groupKey":"g","alerts":[],"truncatedAlerts":-1}"#,
         .invalidField, "truncatedAlerts", "must not be negative"),
    ]

    @Test("each bad body is refused with a reason naming the field", arguments: badBodies.indices)
    func badBody(_ index: Int) {
        let (name, body, code, field, phrase) = Self.badBodies[index]
        do {
            _ = try WebhookFormat.alertmanager.decode(AlertFixtures.json(body))
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.code == code, "\(name)")
            #expect(error.field == field, "\(name)")
            #expect(error.message.contains(phrase), "\(name): \(error.message)")
            #expect(error.apiError.code == .invalidRequest)
            #expect(error.apiError.code.httpStatus == 400)
        }
    }

    @Test("a Grafana body sent to an alertmanager route says which format to use")
    func grafanaOnAlertmanagerRoute() throws {
        #expect(throws: AlertPayloadError.self) { try WebhookFormat.alertmanager.decode(AlertFixtures.body("grafana/firing.json")) }
        do {
            _ = try WebhookFormat.alertmanager.decode(try AlertFixtures.body("grafana/firing.json"))
        } catch let error as AlertPayloadError {
            #expect(error.message.contains("format: grafana"))
        }
    }

    @Test("bounds on alerts, labels and label bytes are 413s naming the field")
    func bounds() throws {
        let limits = PayloadLimits(maxAlerts: 2, maxLabels: 3, maxLabelBytes: 20)
        func refusal(_ body: String) -> AlertPayloadError? {
            do { _ = try WebhookFormat.alertmanager.decode(AlertFixtures.json(body), limits: limits); return nil } catch { return error }
        }
        let alert = #"{"status":"firing","labels":{"a":"1"}}"#
        let tooMany = refusal(#"{"version":"4","status":"firing","groupKey":"g","alerts":[\#(alert),\#(alert),\#(alert)]}"#)
        #expect(tooMany?.code == .tooLarge)
        #expect(tooMany?.field == "alerts")
        #expect(tooMany?.apiError.code.httpStatus == 413)
        let manyLabels = refusal(#"{"version":"4","status":"firing","groupKey":"g","alerts":[{"status":"firing","labels":{"a":"1","b":"2","c":"3","d":"4"}}]}"#)
        #expect(manyLabels?.field == "alerts[0].labels")
        let longLabel = refusal(#"{"version":"4","status":"firing","groupKey":"g","alerts":[{"status":"firing","labels":{"a":"123456789012345678901"}}]}"#)
        #expect(longLabel?.field == "alerts[0].labels.a")
        #expect(longLabel?.message.contains("at most 20") == true)
        #expect(refusal(#"{"version":"4","status":"firing","groupKey":"g","alerts":[\#(alert)]}"#) == nil)
    }

    @Test("json bodies are any JSON, reachable by dotted paths, nesting bounded")
    func jsonFormat() throws {
        let payload = try WebhookFormat.json.decode(AlertFixtures.json(#"{"build":{"status":"failed","tags":["ci","main"]},"n":3}"#))
        #expect(payload.notification == nil)
        #expect(try PayloadPath("build.status").values(in: payload.templateValue) == ["failed"])
        #expect(try PayloadPath("build.tags").values(in: payload.templateValue) == ["ci", "main"])
        #expect(try PayloadPath("build.tags.#2").values(in: payload.templateValue) == ["main"])
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(throws: AlertPayloadError.self) { try WebhookFormat.json.decode(AlertFixtures.json(deep)) }
        #expect(throws: AlertPayloadError.self) { try WebhookFormat.json.decode(AlertFixtures.json("{nope}")) }
    }

    @Test("the template view has the body's names plus fingerprints and per-status lists")
    func templateView() throws {
        let payload = try WebhookFormat.alertmanager.decode(try AlertFixtures.body("alertmanager/firing.json"))
        let template = try Template(source: "{{commonLabels.alertname}} ({{alerts.length}}) {{fingerprints}} {{#firing}}[{{labels.instance}}]{{/firing}}")
        #expect(template.render(payload.templateValue, escaping: .none)
                == "DiskFull (2) 017f954e1b371ec4,02a477a5517b55ce [db-7][db-9]")
    }
}
