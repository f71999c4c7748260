/// One webhook notification for one alert group: Alertmanager's webhook v4, or Grafana's
/// unified alerting webhook (the same shape plus ``grafana``).
public struct AlertNotification: Sendable, Hashable, Codable {
    /// `4` for Alertmanager, `1` for Grafana.
    public var version: String
    /// `firing` when any alert of the group fires.
    public var status: AlertStatus
    /// The receiver (Alertmanager) or contact point (Grafana) that sent it.
    public var receiver: String
    /// Identifies the alert group across notifications: the incident's key.
    public var groupKey: String
    /// Alerts the sender left out because of its `max_alerts`.
    public var truncatedAlerts: Int
    public var groupLabels: [String: String]
    public var commonLabels: [String: String]
    public var commonAnnotations: [String: String]
    /// The sender's own URL. Shown as a link only; never used to call back (silences go
    /// to the configured Alertmanager peers).
    public var externalURL: String
    public var alerts: [AlertInstance]
    /// Why Alertmanager sent it, when it says (newer versions).
    public var notificationReason: String?
    /// Grafana's top-level additions; nil for Alertmanager.
    public var grafana: GrafanaNotificationDetails?
    /// A PagerDuty event's own fields; nil for the others.
    public var pagerDuty: PagerDutyDetails?
    /// Who acknowledged the incident, when the notification says so (a PagerDuty
    /// `acknowledge`).
    public var acknowledgedBy: String?
    /// True when it only names its incident (a PagerDuty `resolve` or `acknowledge`
    /// without a payload): the labels and annotations shown stay as they were.
    public var identityOnly: Bool?

    public init(version: String = "4", status: AlertStatus, receiver: String = "", groupKey: String,
                truncatedAlerts: Int = 0, groupLabels: [String: String] = [:],
                commonLabels: [String: String] = [:], commonAnnotations: [String: String] = [:],
                externalURL: String = "", alerts: [AlertInstance], notificationReason: String? = nil,
                grafana: GrafanaNotificationDetails? = nil) {
        self.version = version
        self.status = status
        self.receiver = receiver
        self.groupKey = groupKey
        self.truncatedAlerts = truncatedAlerts
        self.groupLabels = groupLabels
        self.commonLabels = commonLabels
        self.commonAnnotations = commonAnnotations
        self.externalURL = externalURL
        self.alerts = alerts
        self.notificationReason = notificationReason
        self.grafana = grafana
    }

    /// The fingerprints of its alerts, sorted and without repeats: the set an HA pair
    /// agrees on, whatever order each peer lists the alerts in.
    public var fingerprints: [String] {
        Array(Set(alerts.map(\.fingerprint))).sorted()
    }

    /// Its alerts, each as `fingerprint/status/startsAt`, sorted and comma-joined: what
    /// the two peers of an HA pair agree on for one notification, whatever their order.
    /// An alert's status is in it (a group still firing while one of its alerts resolved
    /// is a new notification), and so is its start (an alert that resolved and fires
    /// again starts anew: a flap is new too).
    public var alertKeys: String {
        alerts.map { "\($0.fingerprint)/\($0.status.rawValue)/\($0.startsAt?.rfc3339 ?? "")" }.sorted()
            .joined(separator: ",")
    }

    /// The labels that name the group: `groupLabels`, or `commonLabels` when the route
    /// groups by nothing (or by `...`) and so sends no group labels.
    public var identifyingLabels: [String: String] {
        groupLabels.isEmpty ? commonLabels : groupLabels
    }
}

/// What Grafana adds at the top of its webhook.
public struct GrafanaNotificationDetails: Sendable, Hashable, Codable {
    /// Grafana's rendered title, e.g. `[FIRING:2] Memory pressure Servers (infra)`.
    public var title: String
    /// `alerting` or `ok`.
    public var state: String
    /// Grafana's rendered message.
    public var message: String
    public var orgId: Int?

    public init(title: String = "", state: String = "", message: String = "", orgId: Int? = nil) {
        self.title = title
        self.state = state
        self.message = message
        self.orgId = orgId
    }
}
