import SwitchboardCrypto
import Templates

/// A rule's `dedupe:`: a key template rendered against each payload, and how long a key
/// suppresses repeats.
///
/// The key names the body as `payload`, as action templates do. The default for alert
/// notifications is `{{payload.groupKey}}/{{payload.status}}/{{payload.alertKeys}}`: both
/// peers of an HA Alertmanager pair send the same group, status and alerts (each by
/// fingerprint, status and start), so the second copy folds into the first, while a
/// changed notification (one more alert firing, one resolved in a group still firing, an
/// alert that resolved firing again) is new. The fingerprints alone would fold an alert's
/// resolve inside a firing group, and a flap, into the notification before them.
public struct DedupeKey: Sendable {
    /// The default key template for `alertmanager` and `grafana` routes.
    public static let defaultAlertSource = "{{payload.groupKey}}/{{payload.status}}/{{payload.alertKeys}}"

    /// The key a rule of a `format` route dedupes by when it names none; nil for `json`
    /// (whose bodies cannot be known). A PagerDuty event's action is in its key (an
    /// acknowledge is not its trigger's repeat), and so is its summary (Alertmanager's
    /// `[FIRING:2]` after `[FIRING:1]` updates the incident); a Slack message is its
    /// channel, sender and text.
    public static func defaultSource(for format: WebhookFormat) -> String? {
        switch format {
        case .alertmanager, .grafana: defaultAlertSource
        case .pagerduty: "{{payload.groupKey}}/{{payload.event_action}}/{{payload.alertKeys}}/{{payload.payload.summary}}"
        case .slack: "{{payload.channel}}/{{payload.username}}/{{payload.text}}"
        case .json: nil
        }
    }

    /// How long the default key suppresses repeats: an hour for Alertmanager and
    /// Grafana (a group's key changes when it changes); a minute for PagerDuty and Slack,
    /// whose repeats (an HA pair's twins, a retry) come within seconds while the same
    /// event may rightly come again later (a trigger after its resolve, the same text).
    public static func defaultLifetime(for format: WebhookFormat) -> Duration {
        switch format {
        case .pagerduty, .slack: .seconds(60)
        case .alertmanager, .grafana, .json: .seconds(3600)
        }
    }

    /// The key template.
    public let template: Template
    /// How long a key suppresses repeats (`for:`).
    public let lifetime: Duration

    /// Parses `source` as a Mustache template.
    public init(source: String = DedupeKey.defaultAlertSource, lifetime: Duration = .seconds(3600)) throws(TemplateError) {
        template = try Template(source: source, name: "dedupe.key")
        self.lifetime = lifetime
    }

    /// The key of `payload`: the rendered template, hashed so keys stay small whatever a
    /// group's size (a thousand fingerprints make a long key).
    public func key(for payload: WebhookPayload) -> String {
        let rendered = template.render(.object(["payload": payload.templateValue]), escaping: .none)
        return Digest.hex(Digest.sha256(Array(rendered.utf8)))
    }
}
