import IMProtocol

/// One `webhooks:` entry of a bot, checked: its route, the Alertmanager peers its
/// silences go to, who may silence from chat, and its body limit.
public struct WebhookEndpoint: Sendable {
    /// Where it listens, what it reads and who may call it. When ``generatesSecret``,
    /// its secret is a placeholder until the runner resolves it (``serving(secret:)``).
    public var route: WebhookRoute
    /// Alertmanager base URLs for silences, both peers of a pair; never a payload's.
    public var alertmanagers: [String]
    /// The least group role that may `/silence`, `/confirm` and `/unsilence`.
    public var silenceRole: MemberRole
    /// The largest body accepted, in bytes (413 past it).
    public var maxBodyBytes: Int
    /// The file left the secret empty (`${ALERT_TOKEN:-}` unset): the runner generates
    /// one at the first start and keeps it in the bot's state folder.
    public var generatesSecret: Bool
    /// The variable the secret is read from, for messages that say what to set.
    public var secretVariable: String?
    /// How often the open incidents of the route are checked against what its peers hold
    /// (`reconcile:`); nil: only on `/refresh` and when a silence ends or is lifted.
    public var reconcileEvery: Duration? = WebhookEndpoint.defaultReconcile

    /// The period of reconciliation when the entry sets none: 5 minutes.
    public static let defaultReconcile: Duration? = .seconds(300)

    /// Whether the desk can ask the route's peers about its incidents: Alertmanager's
    /// API, configured.
    var reconciles: Bool { route.format == .alertmanager && !alertmanagers.isEmpty }

    /// The body limit when the entry sets none: 1 MiB.
    public static let defaultBodyBytes = 1 << 20
    /// The most `max_body` may be.
    public static let maximumBodyBytes = 16 << 20

    /// The listener path.
    public var path: String { route.path }

    /// The route with `secret` as its credential, in the format's usual scheme.
    func serving(secret: String) -> WebhookRoute {
        var route = self.route
        route.auth = WebhookAuth.usual(for: route.format, secret: secret)
        return route
    }
}
