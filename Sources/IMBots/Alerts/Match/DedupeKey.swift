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
