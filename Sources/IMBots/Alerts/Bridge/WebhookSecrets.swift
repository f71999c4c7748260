import Foundation

/// Secrets of webhook routes whose file leaves them empty (`secret: ${ALERT_TOKEN:-}`
/// unset): generated at the bot's first start and kept in `STATE/<bot>/` (0600), so no
/// shipped file carries a default secret and the sender can read it from that file
/// (Alertmanager's `credentials_file`).
enum WebhookSecrets {
    /// The file that keeps the secret of `path`: `webhook-hooks-alertmanager.secret`.
    static func file(for path: String, in folder: String) -> String {
        let slug = path.unicodeScalars.map { scalar -> String in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
                ? String(scalar) : "-"
        }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return folder + "/webhook-" + (slug.isEmpty ? "root" : slug) + ".secret"
    }

    /// The secret of `endpoint`: read from its file, or generated there; says where.
    static func resolve(_ endpoint: WebhookEndpoint, bot: String, folder: String,
                        note: (String) -> Void) throws(RunnerError) -> String {
        let path = file(for: endpoint.path, in: folder)
        let (secret, created) = try LocalFiles.secret(at: path, prefix: "sbw_")
        let variable = endpoint.secretVariable.map { " (\($0))" } ?? ""
        let sender: String
        switch endpoint.route.format {
        case .grafana: sender = "Grafana's contact point: its HMAC signature secret"
        case .pagerduty: sender = "the sender's PagerDuty routing key (Alertmanager: pagerduty_configs.routing_key_file)"
        case .slack: sender = "the sender's webhook URL ends in /<the secret> (Alertmanager: slack_configs.api_url_file)"
        case .alertmanager, .json: sender = "Alertmanager: http_config.authorization.credentials_file"
        }
        note("bot \(bot): webhook \(endpoint.path) has no secret set\(variable); "
             + (created ? "generated one, kept in \(path)" : "using the generated one in \(path)")
             + " (mode 0600): give it to the sender (\(sender))")
        return secret
    }
}
