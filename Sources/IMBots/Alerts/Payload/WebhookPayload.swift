import IMProtocol
import Templates

/// A decoded webhook body, as rules see it.
public enum WebhookPayload: Sendable, Hashable {
    /// An Alertmanager or Grafana notification, typed.
    case alerts(AlertNotification, format: WebhookFormat)
    /// Any other JSON body.
    case json(TemplateValue)

    /// The notification, when the body is one.
    public var notification: AlertNotification? {
        if case .alerts(let notification, _) = self { return notification }
        return nil
    }

    /// The value `match:` paths and templates read: the body's own field names, plus for
    /// alert notifications `fingerprints` (sorted, joined by `,`), `alertKeys` (see
    /// ``AlertNotification/alertKeys``), `firing` and `resolved` (the alerts of each
    /// status) and their counts.
    public var templateValue: TemplateValue {
        switch self {
        case .json(let value): value
        case .alerts(let notification, _): notification.templateValue
        }
    }
}

extension AlertNotification {
    /// The notification as templates see it (see ``WebhookPayload/templateValue``).
    public var templateValue: TemplateValue {
        let alertValues = alerts.map(\.templateValue)
        let firing = zip(alerts, alertValues).filter { $0.0.status == .firing }.map(\.1)
        let resolved = zip(alerts, alertValues).filter { $0.0.status == .resolved }.map(\.1)
        var members: [String: TemplateValue] = [
            "version": .string(version),
            "status": .string(status.rawValue),
            "receiver": .string(receiver),
            "groupKey": .string(groupKey),
            "truncatedAlerts": .int(truncatedAlerts),
            "groupLabels": .labels(groupLabels),
            "commonLabels": .labels(commonLabels),
            "commonAnnotations": .labels(commonAnnotations),
            "externalURL": .string(externalURL),
            "alerts": .array(alertValues),
            "fingerprints": .string(fingerprints.joined(separator: ",")),
            "alertKeys": .string(alertKeys),
            "firing": .array(firing),
            "resolved": .array(resolved),
            "firingCount": .int(firing.count),
            "resolvedCount": .int(resolved.count),
        ]
        if let notificationReason { members["notification_reason"] = .string(notificationReason) }
        if let grafana {
            members["title"] = .string(grafana.title)
            members["state"] = .string(grafana.state)
            members["message"] = .string(grafana.message)
            if let orgId = grafana.orgId { members["orgId"] = .int(orgId) }
        }
        if case .object(let event)? = pagerDuty?.fields {
            // PagerDuty's own names (`event_action`, `dedup_key`, `payload`, `links`, …) beside the alert view.
            members.merge(event) { alertView, _ in alertView }
        }
        return .object(members)
    }
}

extension AlertInstance {
    /// One alert as templates see it; times in RFC 3339, absent ones empty.
    public var templateValue: TemplateValue {
        var members: [String: TemplateValue] = [
            "status": .string(status.rawValue),
            "labels": .labels(labels),
            "annotations": .labels(annotations),
            "startsAt": .string(startsAt?.rfc3339 ?? ""),
            "endsAt": .string(endsAt?.rfc3339 ?? ""),
            "generatorURL": .string(generatorURL),
            "fingerprint": .string(fingerprint),
        ]
        if let grafana {
            members["values"] = .object(grafana.values.mapValues { .double($0) })
            members["valueString"] = .string(grafana.valueString)
            members["silenceURL"] = .string(grafana.silenceURL)
            members["dashboardURL"] = .string(grafana.dashboardURL)
            members["panelURL"] = .string(grafana.panelURL)
            members["imageURL"] = .string(grafana.imageURL)
            if let orgId = grafana.orgId { members["orgId"] = .int(orgId) }
        }
        return .object(members)
    }
}

extension TemplateValue {
    /// A label set as an object of strings.
    static func labels(_ labels: [String: String]) -> TemplateValue {
        .object(labels.mapValues { .string($0) })
    }
}
