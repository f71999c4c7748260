import Foundation
import IMProtocol

/// The alert half of the runner kill test: which Alertmanager notifications are sent, and
/// what the alert bot's conversation must show once they are all in.
///
/// Each incident is one alert group (`SoakAlert<g>`) of `instances` alerts, sent as
/// Alertmanager sends a group that grows and then heals: its alerts start firing one
/// notification at a time, then resolve one at a time, the last notification resolving the
/// group. Every notification is one state change, so with `flap_hold: 0s` each but the
/// first (which posts the living message) must be answered by exactly one reply to that
/// message, and the message must end showing the group resolved.
///
/// The bodies are made from a real Alertmanager notification (`shared/testdata/alertmanager/
/// firing.json`), its alerts, labels and group replaced.
struct AlertPlan: Sendable {
    let incidents: Int
    let instances: Int
    /// The real notification's JSON text (each body starts from a fresh copy of it).
    private let template: Data

    /// Notifications one incident takes: each alert fires, then each resolves.
    var perIncident: Int { 2 * instances }
    var total: Int { incidents * perIncident }

    /// About `webhooks` notifications in groups of `instances` alerts, the body read from `testdata`.
    init(webhooks: Int, instances: Int, testdata: String) throws {
        self.instances = max(1, instances)
        incidents = webhooks / (2 * self.instances)
        let path = testdata + "/alertmanager/firing.json"
        guard let data = FileManager.default.contents(atPath: path), Self.parse(data) != nil else {
            throw SoakFailure("cannot read an Alertmanager notification from \(path) (--testdata names the folder)")
        }
        template = data
    }

    /// The notification and its first alert.
    private static func parse(_ data: Data) -> (body: [String: Any], alert: [String: Any])? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let alert = (object["alerts"] as? [[String: Any]])?.first else { return nil }
        return (object, alert)
    }

    func alertname(_ incident: Int) -> String { "SoakAlert\(incident)" }
    func instance(_ incident: Int, _ alert: Int) -> String { "i\(incident)-\(alert)" }
    func groupKey(_ incident: Int) -> String { #"{}:{alertname="\#(alertname(incident))"}"# }

    /// The body of notification `step` (0 ..< perIncident) of `incident`.
    func body(_ incident: Int, step: Int) -> Data {
        guard let (real, alertTemplate) = Self.parse(template) else { return Data() }
        let resolvedCount = max(0, step - instances + 1)
        let listed = min(step + 1, instances)
        let name = alertname(incident)
        let alerts: [[String: Any]] = (0..<listed).map { alert in
            var entry: [String: Any] = alertTemplate
            let resolved = alert < resolvedCount
            entry["status"] = resolved ? "resolved" : "firing"
            entry["labels"] = ["alertname": name, "instance": instance(incident, alert), "job": "soak", "severity": "critical"]
            entry["annotations"] = ["summary": "soak alert \(alert) of incident \(incident)"]
            entry["startsAt"] = "2026-11-29T15:54:40.46681442Z"
            entry["endsAt"] = resolved ? "2026-11-29T16:10:00Z" : "0001-01-01T00:00:00Z"
            entry["fingerprint"] = String(format: "%08x%08x", incident + 1, alert + 1)
            return entry
        }
        var body = real
        body["status"] = resolvedCount == instances ? "resolved" : "firing"
        body["alerts"] = alerts
        body["groupKey"] = groupKey(incident)
        body["groupLabels"] = ["alertname": name]
        body["commonLabels"] = ["alertname": name, "job": "soak", "severity": "critical"]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    }

    /// The reply each notification but the first must get, in order.
    func expectedReplies(_ incident: Int) -> [String] {
        (1..<perIncident).map { step in
            if step < instances { return "🔥 1 new: \(instance(incident, step))" }
            if step < perIncident - 1 { return "✅ resolved: \(instance(incident, step - instances))" }
            return "✅ all resolved: \(alertname(incident))"
        }
    }

    /// What is wrong with how the conversation shows `incident`; empty when it shows every
    /// state change once. `messages` are the bot's messages in the conversation.
    func problems(_ incident: Int, in messages: [Message]) -> AlertAudit {
        var audit = AlertAudit()
        let title = alertname(incident)
        let living = messages.filter { $0.replyTo == nil && $0.text.split(separator: "\n").first.map {
            $0.hasSuffix(": " + title)
        } ?? false }
        guard let message = living.first else {
            audit.missingMessages = 1
            audit.lost = perIncident - 1
            return audit
        }
        audit.duplicateMessages = living.count - 1
        let replies = messages.filter { $0.replyTo == message.id }
        let expected = expectedReplies(incident)
        for text in expected {
            let count = replies.filter { $0.text == text }.count
            if count == 0 { audit.lost += 1 }
            if count > 1 { audit.duplicated += count - 1 }
        }
        audit.stray = replies.filter { !expected.contains($0.text) }.count
        // Replies stray from their message: the incident's reply texts anywhere else.
        audit.stray += messages.filter { $0.replyTo != message.id && $0.replyTo != nil && expected.contains($0.text) }.count
        let order = replies.sorted { $0.seq < $1.seq }.compactMap { expected.firstIndex(of: $0.text) }
        audit.outOfOrder = zip(order, order.dropFirst()).filter { $0 >= $1 }.count
        let lines = message.text.split(separator: "\n").map(String.init)
        let shown = lines.first == "✅ RESOLVED: \(title)" && lines.contains("0 firing · \(instances) resolved")
            && (0..<instances).allSatisfy { lines.contains("✓ \(instance(incident, $0)): soak alert \($0) of incident \(incident)") }
        if !shown { audit.wrongFinalText = 1 }
        return audit
    }
}

/// What the alert bot's conversation got wrong, summed over incidents.
struct AlertAudit: Sendable {
    /// Incidents with no living message, and living messages posted twice.
    var missingMessages = 0
    var duplicateMessages = 0
    /// State changes never replied to, and replied to more than once.
    var lost = 0
    var duplicated = 0
    /// Replies that are no state change of the incident, or not on its message.
    var stray = 0
    /// Replies that came before an earlier change's.
    var outOfOrder = 0
    /// Living messages whose last text is not the resolved group.
    var wrongFinalText = 0

    static func + (a: AlertAudit, b: AlertAudit) -> AlertAudit {
        AlertAudit(missingMessages: a.missingMessages + b.missingMessages,
                   duplicateMessages: a.duplicateMessages + b.duplicateMessages, lost: a.lost + b.lost,
                   duplicated: a.duplicated + b.duplicated, stray: a.stray + b.stray,
                   outOfOrder: a.outOfOrder + b.outOfOrder, wrongFinalText: a.wrongFinalText + b.wrongFinalText)
    }

    var isClean: Bool {
        missingMessages + duplicateMessages + lost + duplicated + stray + outOfOrder + wrongFinalText == 0
    }
}
