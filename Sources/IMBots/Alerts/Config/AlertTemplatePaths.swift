/// The variables the alert bridge's templates read, to the leaf: `payload` in webhook
/// rules (by the route's format), `incident` in an incident's `title:`, `alert` in its
/// `line:`. The one description of these values `check` uses; the code that builds them
/// (`WebhookPayload.templateValue`, `Incident.templateValue`) follows it, and
/// `AlertTemplatePathsTests` holds the two together.
enum AlertTemplatePaths {
    /// The roots of a webhook rule's action templates (`send`, `set`, an incident's `to:`).
    static func webhookRule(_ format: WebhookFormat) -> [String: TemplateShape] {
        [
            "payload": payload(format),
            "bot": .object(["username": .leaf, "nickname": .leaf, "id": .leaf]),
            "now": .object(Dictionary(uniqueKeysWithValues: nowFields.map { ($0, .leaf) })),
            "event": .object(["type": .leaf, "position": .leaf, "at": .leaf]),
            "state": .any,
        ]
    }

    /// The roots of an incident's `title:` template.
    static let title: [String: TemplateShape] = ["incident": incident]

    /// The roots of an incident's `line:` template.
    static let line: [String: TemplateShape] = ["alert": alert]

    /// A notification of `format` as `payload` holds it.
    static func payload(_ format: WebhookFormat) -> TemplateShape {
        switch format {
        case .json:
            return .any
        case .alertmanager:
            return .object(notificationFields(alert: alertmanagerAlert))
        case .grafana:
            var fields = notificationFields(alert: grafanaAlert)
            for name in ["title", "state", "message", "orgId"] { fields[name] = .leaf }
            return .object(fields)
        }
    }

    private static func notificationFields(alert: TemplateShape) -> [String: TemplateShape] {
        [
            "version": .leaf, "status": .leaf, "receiver": .leaf, "groupKey": .leaf, "truncatedAlerts": .leaf,
            "groupLabels": .labels, "commonLabels": .labels, "commonAnnotations": .labels, "externalURL": .leaf,
            "alerts": .list(alert), "firing": .list(alert), "resolved": .list(alert), "fingerprints": .leaf,
            "alertKeys": .leaf,
            "firingCount": .leaf, "resolvedCount": .leaf, "notification_reason": .leaf,
        ]
    }

    private static let alertFields: [String: TemplateShape] = [
        "status": .leaf, "labels": .labels, "annotations": .labels, "startsAt": .leaf, "endsAt": .leaf,
        "generatorURL": .leaf, "fingerprint": .leaf,
    ]

    private static let alertmanagerAlert = TemplateShape.object(alertFields)

    private static let grafanaAlert: TemplateShape = {
        var fields = alertFields
        fields["values"] = .labels
        for name in ["valueString", "silenceURL", "dashboardURL", "panelURL", "imageURL", "orgId"] { fields[name] = .leaf }
        return .object(fields)
    }()

    /// An incident (the title's `incident`).
    static let incident = TemplateShape.object([
        "groupKey": .leaf, "groupLabels": .labels, "commonLabels": .labels, "commonAnnotations": .labels,
        "externalURL": .leaf, "firingCount": .leaf, "resolvedCount": .leaf, "flapCount": .leaf,
        "acknowledgedBy": .leaf, "status": .leaf,
    ])

    /// One alert of an incident (the line's `alert`).
    static let alert = TemplateShape.object([
        "fingerprint": .leaf, "labels": .labels, "annotations": .labels, "status": .leaf, "flaps": .leaf,
    ])

    /// The fields of `now` (`TemplateContext.now`).
    static let nowFields = ["rfc3339", "local", "date", "time", "hour", "minute", "weekday", "timezone", "unix"]
}
