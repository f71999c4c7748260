import IMProtocol
import YAMLCoding

extension WebhookRoute {
    /// The keys a `webhooks:` entry may have.
    static let keys = ["path", "format", "secret", "alertmanager", "silence_role", "max_body", "reconcile"]

    /// Builds one `webhooks:` entry:
    ///
    /// ```yaml
    /// - path: /hooks/alertmanager
    ///   format: alertmanager                  # alertmanager | grafana | pagerduty | slack | json
    ///   secret: ${ALERT_TOKEN}                # the format's usual scheme, or one of:
    ///   # secret: { bearer: … } | { basic: { user: …, password: … } }
    ///   # secret: { grafana_hmac: { secret: …, header: …, timestamp_header: … | none, window: 5m } }
    ///   alertmanager: [http://am-1:9093, http://am-2:9093]   # peers for silences
    ///   silence_role: admin                   # member | admin | owner (default admin)
    ///   max_body: 1MiB                        # bytes, KiB or MiB; at most 16MiB
    ///   reconcile: 5m                         # how often open incidents are checked against
    ///                                         # the peers' alerts; off: only on /refresh
    /// ```
    ///
    /// A plain `secret:` is a bearer token for `alertmanager` and `json` routes, the HMAC
    /// secret (with Grafana's headers and a 5-minute window) for `grafana` routes, the
    /// routing key for `pagerduty` routes and the URL's last segment for `slack` routes; left
    /// empty (`${ALERT_TOKEN:-}` unset), the runner generates one. Throws every problem
    /// with its position.
    public static func parse(yaml node: YAMLNode, file: String,
                             variable: (YAMLMark) -> String? = { _ in nil }) throws(YAMLErrors) -> WebhookEndpoint {
        var reader = AlertYAML(file: file)
        var path: String?, format: WebhookFormat?, secret: YAMLNode?, peers: [String] = []
        var role = MemberRole.admin, maxBody = WebhookEndpoint.defaultBodyBytes
        var reconcile: Duration? = WebhookEndpoint.defaultReconcile
        for (key, value) in reader.keyed(node, "a webhooks entry", known: keys) {
            switch key {
            case "path":
                path = reader.text(value, "path")
                if let text = path, !text.hasPrefix("/") || text.contains("?") || text.contains(" ") {
                    reader.fail(.invalidValue, "path '\(text)' must start with '/' and hold no query or blanks", at: value)
                }
            case "format":
                guard let text = reader.text(value, "format") else { continue }
                format = WebhookFormat(rawValue: text)
                if format == nil {
                    let names = WebhookFormat.allCases.map(\.rawValue)
                    reader.fail(.invalidValue, "unknown format '\(text)'; use \(names.joined(separator: ", "))"
                                + Suggestion.hint(for: text, among: names), at: value)
                }
            case "secret":
                secret = value
            case "silence_role":
                guard let text = reader.text(value, "silence_role") else { continue }
                if let parsed = MemberRole(rawValue: text) { role = parsed } else {
                    reader.fail(.invalidValue, "silence_role '\(text)' is not a group role; use member, admin or owner", at: value)
                }
            case "reconcile":
                if node["reconcile"]?.scalar?.text == "off" {
                    reconcile = nil
                } else if let every = reader.duration(value, "reconcile") {
                    if every >= .seconds(1) { reconcile = every } else {
                        reader.fail(.invalidValue, "reconcile is a period of at least 1s (e.g. 5m), or off", at: value)
                    }
                }
            case "max_body":
                guard let text = reader.text(value, "max_body") else { continue }
                if let bytes = Self.bytes(text), bytes > 0, bytes <= WebhookEndpoint.maximumBodyBytes { maxBody = bytes } else {
                    reader.fail(.invalidValue, "max_body '\(text)' must be a size up to 16MiB, e.g. 256KiB or 1MiB", at: value)
                }
            default:
                for item in value.sequence ?? [value] {
                    guard let url = reader.text(item, "an alertmanager URL") else { continue }
                    let lower = url.lowercased()
                    if lower.hasPrefix("http://") || lower.hasPrefix("https://") { peers.append(url) } else {
                        reader.fail(.invalidValue, "alertmanager URL '\(url)' must start with http:// or https://", at: item)
                    }
                }
            }
        }
        if path == nil { reader.fail(.missingKey, "a webhooks entry needs a path", at: node) }
        if format == nil, node["format"] == nil { reader.fail(.missingKey, "a webhooks entry needs a format", at: node) }
        var auth: WebhookAuth?
        let generated = secret.map { $0.isNull || $0.scalar?.text == "" } ?? false
        if generated {
            // Never "no authentication": a placeholder until the runner generates the secret.
            auth = .bearer(token: "")
        } else if let secret {
            auth = Self.auth(secret, format: format ?? .json, reader: &reader)
        } else {
            reader.fail(.missingKey, "a webhooks entry needs a secret: a route anyone can call is refused "
                        + "(write secret: ${NAME:-} to have the runner generate one)", at: node)
        }
        try reader.check()
        guard let path, let format, let auth else { throw YAMLErrors([]) }
        return WebhookEndpoint(route: WebhookRoute(path: path, format: format, auth: auth), alertmanagers: peers,
                               silenceRole: role, maxBodyBytes: maxBody, generatesSecret: generated,
                               secretVariable: node["secret"].flatMap { variable($0.mark) }, reconcileEvery: reconcile)
    }

    /// `1048576`, `256KiB`, `1MiB`.
    static func bytes(_ text: String) -> Int? {
        for (suffix, scale) in [("KiB", 1 << 10), ("MiB", 1 << 20), ("B", 1)] where text.hasSuffix(suffix) {
            return Int(text.dropLast(suffix.count)).flatMap { $0 <= Int.max / scale ? $0 * scale : nil }
        }
        return Int(text)
    }

    private static func auth(_ node: YAMLNode, format: WebhookFormat, reader: inout AlertYAML) -> WebhookAuth? {
        guard node.mapping != nil else {
            guard let value = reader.nonEmpty(node, "secret") else { return nil }
            return WebhookAuth.usual(for: format, secret: value)
        }
        let before = reader.errors.count
        let entries = reader.keyed(node, "secret", known: ["bearer", "basic", "grafana_hmac"])
        guard entries.count == 1, let (scheme, value) = entries.first else {
            if reader.errors.count == before {
                reader.fail(.invalidValue, "secret must name exactly one of bearer, basic, grafana_hmac", at: node)
            }
            return nil
        }
        switch scheme {
        case "bearer":
            return reader.nonEmpty(value, "secret.bearer").map { .bearer(token: $0) }
        case "basic":
            var user: String?, password: String?
            for (key, item) in reader.keyed(value, "secret.basic", known: ["user", "password"]) {
                if key == "user" { user = reader.nonEmpty(item, "secret.basic.user") }
                else { password = reader.nonEmpty(item, "secret.basic.password") }
            }
            guard let user, let password else {
                reader.fail(.missingKey, "secret.basic needs user and password", at: value)
                return nil
            }
            return .basic(username: user, password: password)
        default:
            var signature = GrafanaSignature(secret: "")
            for (key, item) in reader.keyed(value, "secret.grafana_hmac", known: ["secret", "header", "timestamp_header", "window"]) {
                switch key {
                case "secret": signature.secret = reader.nonEmpty(item, "secret.grafana_hmac.secret") ?? ""
                case "header": signature.signatureHeader = reader.nonEmpty(item, "secret.grafana_hmac.header") ?? signature.signatureHeader
                case "timestamp_header":
                    let header = reader.nonEmpty(item, "secret.grafana_hmac.timestamp_header")
                    signature.timestampHeader = header == "none" ? nil : header ?? signature.timestampHeader
                default:
                    guard let window = reader.duration(item, "secret.grafana_hmac.window") else { continue }
                    if window > .zero { signature.window = window } else {
                        reader.fail(.invalidValue, "secret.grafana_hmac.window must be longer than 0", at: item)
                    }
                }
            }
            guard !signature.secret.isEmpty else {
                if value["secret"] == nil { reader.fail(.missingKey, "secret.grafana_hmac needs a secret", at: value) }
                return nil
            }
            return .grafanaHMAC(signature)
        }
    }
}
