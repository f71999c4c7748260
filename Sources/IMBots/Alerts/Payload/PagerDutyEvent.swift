import Foundation
import IMProtocol
import SwitchboardCrypto
import Templates

/// A PagerDuty Events API v2 event (`format: pagerduty`), as Alertmanager's
/// `pagerduty_configs`, Grafana and most monitoring tools send it to
/// `https://events.pagerduty.com/v2/enqueue`: `routing_key` (the route's secret),
/// `event_action` (`trigger`, `acknowledge`, `resolve`), `dedup_key`, and for a trigger
/// `payload` (`summary`, `source`, `severity` required; `timestamp`, `component`, `group`,
/// `class`, `custom_details`), with `links`, `images`, `client` and `client_url`.
///
/// The event is read as an alert notification of one alert, so that it goes through the
/// same rules, dedupe and living incidents as Alertmanager's: the incident is the
/// `dedup_key`'s (group key `pagerduty/<dedup_key>`), a trigger opens or updates it, a
/// resolve closes it, an acknowledge marks it acknowledged by the event's `client`.
public struct PagerDutyEvent: Sendable, Hashable {
    public enum Action: String, Sendable, Hashable, CaseIterable {
        case trigger, acknowledge, resolve
    }

    public var action: Action
    /// The incident's key: the event's, or for a trigger without one, one made from its
    /// body (PagerDuty makes one too, and answers it).
    public var dedupKey: String
    public var routingKey: String
    /// The event's fields as templates see them (`routing_key` left out: it is the secret).
    public var fields: TemplateValue
    public var summary: String?
    public var source: String?
    public var severity: String?
    public var component: String?
    public var group: String?
    public var eventClass: String?
    public var customDetails: TemplateValue?
    public var timestamp: Timestamp?
    public var client: String?
    public var clientURL: String?
    /// The first link's `href`, shown as the alert's source.
    public var link: String?

    /// PagerDuty's severities.
    static let severities = ["critical", "error", "warning", "info"]

    /// Reads and checks an event; the error names the field, as PagerDuty's `errors` do.
    init(reading value: TemplateValue, limits: PayloadLimits) throws(AlertPayloadError) {
        let reader = try PayloadReader(value, path: "", limits: limits)
        routingKey = try reader.string("routing_key")
        let actionText = try reader.string("event_action")
        guard let action = Action(rawValue: actionText) else {
            throw AlertPayloadError(.invalidField, field: "event_action",
                                    "event_action must be trigger, acknowledge or resolve, got '\(actionText.prefix(32))'")
        }
        self.action = action
        let givenKey = try reader.optionalString("dedup_key")
        if let givenKey, givenKey.utf8.count > 255 {
            throw AlertPayloadError(.invalidField, field: "dedup_key", "dedup_key must be at most 255 characters")
        }
        if action != .trigger, givenKey?.isEmpty ?? true {
            throw AlertPayloadError(.missingField, field: "dedup_key", "dedup_key is missing: an \(actionText) names the incident by it")
        }
        if let payload = reader.optional("payload") {
            let details = try PayloadReader(payload, path: "payload", limits: limits)
            summary = try details.optionalString("summary")
            source = try details.optionalString("source")
            severity = try details.optionalString("severity")
            component = try details.optionalString("component")
            group = try details.optionalString("group")
            eventClass = try details.optionalString("class")
            customDetails = details.optional("custom_details")
            timestamp = try Self.time(details)
        } else if action == .trigger {
            throw AlertPayloadError(.missingField, field: "payload", "payload is missing: a trigger needs summary, source and severity")
        }
        if action == .trigger {
            for (name, value) in [("summary", summary), ("source", source), ("severity", severity)] where value?.isEmpty ?? true {
                throw AlertPayloadError(.missingField, field: "payload.\(name)", "payload.\(name) is missing")
            }
        }
        if let severity, !Self.severities.contains(severity) {
            throw AlertPayloadError(.invalidField, field: "payload.severity",
                                    "payload.severity must be critical, error, warning or info, got '\(severity.prefix(32))'")
        }
        if let summary, summary.count > 1024 {
            throw AlertPayloadError(.invalidField, field: "payload.summary", "payload.summary must be at most 1024 characters")
        }
        client = try reader.optionalString("client")
        clientURL = try reader.optionalString("client_url")
        if case .array(let links)? = reader.optional("links"), case .object(let first)? = links.first,
           case .string(let href)? = first["href"] {
            link = href
        }
        guard case .object(var members) = value else { throw AlertPayloadError(.invalidField, field: nil, "the body must be an object") }
        members["routing_key"] = nil
        dedupKey = givenKey.flatMap { $0.isEmpty ? nil : $0 } ?? Self.derivedKey(members)
        members["dedup_key"] = .string(dedupKey)
        fields = .object(members)
    }

    /// PagerDuty's timestamps are ISO 8601, often with `+0000` for the zone.
    private static func time(_ reader: PayloadReader) throws(AlertPayloadError) -> Timestamp? {
        guard let text = try reader.optionalString("timestamp"), !text.isEmpty else { return nil }
        var normalized = text
        if let last = text.suffix(5).first, last == "+" || last == "-", !text.suffix(4).contains(":") {
            normalized = String(text.dropLast(2)) + ":" + text.suffix(2)
        }
        guard let time = Timestamp(rfc3339: normalized) else {
            throw AlertPayloadError(.invalidField, field: "payload.timestamp",
                                    "payload.timestamp must be an ISO 8601 time, got '\(text.prefix(64))'")
        }
        return time
    }

    /// A key for a trigger that names none: the same event gives the same key.
    private static func derivedKey(_ members: [String: TemplateValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let bytes = (try? encoder.encode(TemplateValue.object(members))) ?? Data()
        return Digest.hex(Array(Digest.sha256(Array(bytes)).prefix(16)))
    }

    /// The event as a notification of one alert (see the type's description).
    var notification: AlertNotification {
        var labels: [String: String] = [:]
        // The source ("the unique location of the affected system") is the alert's instance.
        for (name, value) in [("alertname", summary), ("severity", severity), ("instance", source),
                              ("component", component), ("group", group), ("class", eventClass)] {
            if let value, !value.isEmpty { labels[name] = value }
        }
        var annotations: [String: String] = [:]
        if let summary { annotations["summary"] = summary }
        if case .object(let details)? = customDetails {
            for (name, value) in details {
                annotations[name] = value.plainText
            }
        }
        let fingerprint = Digest.hex(Array(Digest.sha256(Array(dedupKey.utf8)).prefix(8)))
        let alerts: [AlertInstance] =
            action == .acknowledge
            ? []
            : [AlertInstance(
                status: action == .resolve ? .resolved : .firing, labels: labels, annotations: annotations,
                startsAt: timestamp, generatorURL: link ?? "", fingerprint: fingerprint)]
        var notification = AlertNotification(
            version: "2", status: action == .resolve ? .resolved : .firing, receiver: client ?? "",
            groupKey: "pagerduty/\(dedupKey)", commonLabels: labels, commonAnnotations: annotations,
            externalURL: clientURL ?? "", alerts: alerts)
        notification.pagerDuty = PagerDutyDetails(fields: fields)
        notification.acknowledgedBy = action == .acknowledge ? (client.flatMap { $0.isEmpty ? nil : $0 } ?? "PagerDuty") : nil
        // A resolve or acknowledge without a payload only names the incident.
        notification.identityOnly = summary == nil && source == nil ? true : nil
        return notification
    }
}

/// What a PagerDuty event adds to its notification: its own fields, for templates and
/// `match:` (`event_action`, `dedup_key`, `payload.summary`, …).
public struct PagerDutyDetails: Sendable, Hashable, Codable {
    public var fields: TemplateValue
}

extension TemplateValue {
    /// A value as one line of text: strings as they are, anything else as compact JSON.
    var plainText: String {
        switch self {
        case .string(let text): return text
        case .null: return ""
        default:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }
}
