import Foundation
import Templates

/// The body format a webhook route accepts (`format:` in a bot file).
public enum WebhookFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Prometheus Alertmanager's webhook, version 4.
    case alertmanager
    /// Grafana unified alerting's webhook contact point, version 1.
    case grafana
    /// Any JSON body; rules reach its fields by dotted paths.
    case json
    /// PagerDuty's Events API v2: an event read as a one-alert notification of the
    /// `dedup_key`'s incident (``PagerDutyEvent``).
    case pagerduty
    /// Slack's incoming webhook: `text`, `blocks` and `attachments` rendered to plain
    /// text (``SlackMessage``).
    case slack

    /// Parses and checks a body; the error names the field and is worth a 400 (413 past
    /// a bound).
    public func decode(_ body: Data, limits: PayloadLimits = PayloadLimits()) throws(AlertPayloadError) -> WebhookPayload {
        let value = try Self.parseJSON(body, limits: limits)
        switch self {
        case .json:
            return .json(value)
        case .alertmanager, .grafana:
            return .alerts(try AlertNotification(reading: value, format: self, limits: limits), format: self)
        case .pagerduty:
            return .alerts(try PagerDutyEvent(reading: value, limits: limits).notification, format: self)
        case .slack:
            return .json(try SlackMessage(reading: value, limits: limits).templateValue)
        }
    }

    /// Whether its bodies are alert notifications, which `incident` actions take.
    public var carriesAlerts: Bool {
        switch self {
        case .alertmanager, .grafana, .pagerduty: true
        case .json, .slack: false
        }
    }

    /// Whether senders give the secret as the URL's last segment (Slack's webhook URLs).
    public var takesSecretInPath: Bool { self == .slack }

    /// The protocol version this bridge reads; nil for the formats without one.
    var expectedVersion: String? {
        switch self {
        case .alertmanager: "4"
        case .grafana: "1"
        case .json, .pagerduty, .slack: nil
        }
    }

    /// JSON to a value, refusing bodies nested deeper than the bound.
    static func parseJSON(_ body: Data, limits: PayloadLimits) throws(AlertPayloadError) -> TemplateValue {
        guard !body.isEmpty else {
            throw AlertPayloadError(.invalidJSON, field: nil, "the body is empty; a JSON document was expected")
        }
        let value: TemplateValue
        do {
            value = try JSONDecoder().decode(TemplateValue.self, from: body)
        } catch let DecodingError.dataCorrupted(context) {
            let reason = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw AlertPayloadError(.invalidJSON, field: nil,
                                    "the body is not valid JSON: \(reason ?? context.debugDescription)")
        } catch {
            throw AlertPayloadError(.invalidJSON, field: nil, "the body is not valid JSON: \(error)")
        }
        if value.depth > limits.maxDepth {
            throw AlertPayloadError(.tooLarge, field: nil,
                                    "the body nests deeper than \(limits.maxDepth) levels")
        }
        return value
    }
}

extension AlertNotification {
    /// Reads and checks an Alertmanager or Grafana body.
    init(reading value: TemplateValue, format: WebhookFormat, limits: PayloadLimits) throws(AlertPayloadError) {
        let reader = try PayloadReader(value, path: "", limits: limits)
        let version = try reader.string("version")
        if let expected = format.expectedVersion, version != expected {
            throw AlertPayloadError(.unsupportedVersion, field: "version",
                                    "version is '\(version.prefix(16))'; the \(format.rawValue) format reads version \(expected)"
                                    + (format == .alertmanager && version == "1" ? " (is this a Grafana contact point? use format: grafana)" : ""))
        }
        let grafana = format == .grafana
        var alerts: [AlertInstance] = []
        for alert in try reader.objects("alerts", limit: limits.maxAlerts) {
            alerts.append(try AlertInstance(reading: alert, grafana: grafana))
        }
        let truncated = try reader.int("truncatedAlerts") ?? 0
        guard truncated >= 0 else {
            throw AlertPayloadError(.invalidField, field: "truncatedAlerts", "truncatedAlerts must not be negative")
        }
        self.init(
            version: version,
            status: try reader.status("status"),
            receiver: try reader.optionalString("receiver") ?? "",
            groupKey: try reader.string("groupKey"),
            truncatedAlerts: truncated,
            groupLabels: try reader.labels("groupLabels"),
            commonLabels: try reader.labels("commonLabels"),
            commonAnnotations: try reader.labels("commonAnnotations"),
            externalURL: try reader.optionalString("externalURL") ?? "",
            alerts: alerts,
            notificationReason: try reader.optionalString("notification_reason"),
            grafana: grafana
                ? GrafanaNotificationDetails(title: try reader.optionalString("title") ?? "",
                                             state: try reader.optionalString("state") ?? "",
                                             message: try reader.optionalString("message") ?? "",
                                             orgId: try reader.int("orgId"))
                : nil)
        if groupKey.isEmpty {
            throw AlertPayloadError(.invalidField, field: "groupKey", "groupKey must not be empty")
        }
    }
}

extension TemplateValue {
    /// Levels of lists and objects, 0 for a scalar.
    var depth: Int {
        switch self {
        case .array(let items): 1 + (items.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.values.map(\.depth).max() ?? 0)
        default: 0
        }
    }
}
