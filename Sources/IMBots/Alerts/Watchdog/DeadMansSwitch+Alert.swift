import IMProtocol

extension DeadMansSwitch {
    /// The alert a fired (or recovered) switch raises, as a notification of its own: a
    /// group `deadman:<rule>` with one `DeadMansSwitch` alert, so the rule's `incident`
    /// (or `send`) shows it as any other: one living message, resolved when the expected
    /// notifications are back.
    static func alert(rule: String, path: String, status: AlertStatus, since: Int64, interval: Duration,
                      now: Int64) -> WebhookPayload {
        let labels = ["alertname": "DeadMansSwitch", "rule": rule, "webhook": path]
        let last = Timestamp(milliseconds: since).rfc3339
        let summary = status == .firing
            ? "nothing rule \(rule) expects arrived on \(path) for \(SilenceDraft.format(interval)) (last at \(last)): "
                + "alerts may not reach this chat"
            : "what rule \(rule) expects arrives on \(path) again"
        let alert = AlertInstance(status: status, labels: labels, annotations: ["summary": summary],
                                  startsAt: Timestamp(milliseconds: since),
                                  endsAt: status == .resolved ? Timestamp(milliseconds: now) : nil,
                                  fingerprint: "deadman-\(rule)")
        let notification = AlertNotification(
            status: status, receiver: "switchboard", groupKey: "deadman:\(rule)",
            groupLabels: ["alertname": "DeadMansSwitch"], commonLabels: labels,
            commonAnnotations: ["summary": summary], alerts: [alert])
        return .alerts(notification, format: .alertmanager)
    }
}
