/// A webhook rule's trigger: `webhook: PATH` with its `match:`, and for a dead-man's
/// switch `quiet:` (nothing its `match:` accepts came for that long).
///
/// ```yaml
/// when: { webhook: /hooks/alertmanager, match: { commonLabels.severity: critical } }
/// when: { webhook: /hooks/alertmanager, match: { commonLabels.alertname: Watchdog }, quiet: 5m }
/// ```
///
/// A rule with `quiet` fires when no notification its `match:` accepts came for that
/// long, and once more when one comes again (docs/alerts.md, "Dead-man's switch").
struct WebhookCondition: Sendable {
    /// The `webhooks:` path it listens on.
    let path: String
    /// What the payload must hold; nil: every payload of the path.
    let match: PayloadMatch?
    /// The dead-man's switch's interval, when the rule is one.
    let quiet: Duration?

    func matches(_ facts: EventFacts) -> Bool {
        guard let payload = facts.payload, facts.webhookPath == path else { return false }
        return match?.matches(payload) ?? true
    }

    func failure(_ facts: EventFacts) -> String {
        guard let payload = facts.payload, let arrived = facts.webhookPath else {
            return "webhook: the rule takes webhooks on \(path), not feed events"
        }
        guard arrived == path else { return "webhook: the payload came in on \(arrived), the rule takes \(path)" }
        guard let clause = match?.firstFailure(in: payload.templateValue) else { return "holds" }
        return "match: \(clause.path) \(clause.condition.summary) does not hold"
    }

    var summary: String {
        var text = "a webhook on \(path)"
        if let match { text += " matching \(match.clauses.map(\.path.description).joined(separator: ", "))" }
        if let quiet { text += ", quiet for \(SilenceDraft.format(quiet))" }
        return text
    }
}
