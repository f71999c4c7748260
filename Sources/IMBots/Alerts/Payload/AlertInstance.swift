import IMProtocol
import SwitchboardCrypto

/// Whether an alert (or a whole notification) is firing or resolved.
public enum AlertStatus: String, Sendable, Hashable, Codable {
    case firing
    case resolved
}

/// One alert of a notification, as Alertmanager's webhook v4 sends it (Grafana adds
/// ``grafana``).
public struct AlertInstance: Sendable, Hashable, Codable {
    public var status: AlertStatus
    public var labels: [String: String]
    public var annotations: [String: String]
    /// When it started firing; nil when the sender gave none.
    public var startsAt: Timestamp?
    /// When it resolved (or will be considered resolved); nil while firing with no end
    /// (the sender's `0001-01-01T00:00:00Z`).
    public var endsAt: Timestamp?
    public var generatorURL: String
    /// The sender's identity of the alert: a hash of its labels. Filled from the labels
    /// when a sender leaves it out, so every instance has one.
    public var fingerprint: String
    /// Grafana's per-alert additions; nil for Alertmanager.
    public var grafana: GrafanaAlertDetails?

    /// Creates an alert; ``fingerprint`` defaults to ``fingerprint(of:)`` of the labels.
    public init(status: AlertStatus, labels: [String: String], annotations: [String: String] = [:],
                startsAt: Timestamp? = nil, endsAt: Timestamp? = nil, generatorURL: String = "",
                fingerprint: String? = nil, grafana: GrafanaAlertDetails? = nil) {
        self.status = status
        self.labels = labels
        self.annotations = annotations
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.generatorURL = generatorURL
        self.fingerprint = fingerprint ?? Self.fingerprint(of: labels)
        self.grafana = grafana
    }

    /// A stable 16-hex-digit identity for a label set (not Alertmanager's own hash, which
    /// is only ever used when a sender omitted the fingerprint).
    public static func fingerprint(of labels: [String: String]) -> String {
        var text = ""
        for name in labels.keys.sorted() {
            text += name + "\u{0}" + (labels[name] ?? "") + "\u{0}"
        }
        return Digest.hex(Array(Digest.sha256(Array(text.utf8)).prefix(8)))
    }
}

/// What Grafana adds to each alert of its webhook.
public struct GrafanaAlertDetails: Sendable, Hashable, Codable {
    /// The query results by ref id (`A`, `C`).
    public var values: [String: Double]
    public var valueString: String
    public var silenceURL: String
    public var dashboardURL: String
    public var panelURL: String
    public var imageURL: String
    public var orgId: Int?

    public init(values: [String: Double] = [:], valueString: String = "", silenceURL: String = "",
                dashboardURL: String = "", panelURL: String = "", imageURL: String = "", orgId: Int? = nil) {
        self.values = values
        self.valueString = valueString
        self.silenceURL = silenceURL
        self.dashboardURL = dashboardURL
        self.panelURL = panelURL
        self.imageURL = imageURL
        self.orgId = orgId
    }
}

extension AlertInstance {
    /// Reads one alert; Grafana's fields only when `grafana` is set.
    init(reading reader: PayloadReader, grafana: Bool) throws(AlertPayloadError) {
        let labels = try reader.labels("labels")
        let fingerprint = try reader.optionalString("fingerprint")
        self.init(
            status: try reader.status("status"),
            labels: labels,
            annotations: try reader.labels("annotations"),
            startsAt: try reader.time("startsAt"),
            endsAt: try reader.time("endsAt"),
            generatorURL: try reader.optionalString("generatorURL") ?? "",
            fingerprint: (fingerprint?.isEmpty ?? true) ? nil : fingerprint,
            grafana: grafana ? try GrafanaAlertDetails(reading: reader) : nil)
    }
}

extension GrafanaAlertDetails {
    init(reading reader: PayloadReader) throws(AlertPayloadError) {
        self.init(values: try reader.numbers("values"),
                  valueString: try reader.optionalString("valueString") ?? "",
                  silenceURL: try reader.optionalString("silenceURL") ?? "",
                  dashboardURL: try reader.optionalString("dashboardURL") ?? "",
                  panelURL: try reader.optionalString("panelURL") ?? "",
                  imageURL: try reader.optionalString("imageURL") ?? "",
                  orgId: try reader.int("orgId"))
    }
}
