/// The variables the alert bridge's templates read, to the leaf, as rows of the table
/// `check` judges templates by (``TemplateVariable``): `payload` in webhook rules (by the
/// route's format, grafted at ``TemplateVariables``' `payload.{payload}`), `incident` in
/// an incident's `title:`, `alert` in its `line:`. The code that builds these values
/// (`WebhookPayload.templateValue`, `Incident.templateValue`) follows them, and
/// `AlertTemplatePathsTests` holds the two together.
enum AlertTemplatePaths {
    /// A notification of `format` as `payload` holds it; `.any` for a `json` body, whose
    /// fields cannot be known.
    static func payload(_ format: WebhookFormat) -> TemplateShape {
        switch format {
        case .json:
            return TemplateShape(type: .any, source: .webhook)
        case .alertmanager:
            return shape(of: payloadRows(alert: alertRows), root: "payload")
        case .grafana:
            let notification = ["title", "state", "message"].map { row("payload.\($0)", .text) }
                + [row("payload.orgId", .number)]
            return shape(of: payloadRows(alert: alertRows + grafanaAlertRows) + notification, root: "payload")
        case .pagerduty:
            return shape(of: payloadRows(alert: alertRows) + pagerDutyRows, root: "payload")
        case .slack:
            return shape(of: slackRows, root: "payload")
        }
    }

    /// A PagerDuty event's own fields, beside its alert view.
    private static let pagerDutyRows = [
        row("payload.event_action", .text), row("payload.dedup_key", .text), row("payload.client", .text),
        row("payload.client_url", .text),
        row("payload.payload.summary", .text), row("payload.payload.source", .text), row("payload.payload.severity", .text),
        row("payload.payload.timestamp", .text), row("payload.payload.component", .text),
        row("payload.payload.group", .text), row("payload.payload.class", .text),
        row("payload.payload.custom_details", .any), row("payload.links", .list(.object)),
        row("payload.links.#.href", .text), row("payload.links.#.text", .text), row("payload.images", .list(.object)),
        row("payload.images.#.src", .text), row("payload.images.#.href", .text), row("payload.images.#.alt", .text),
    ]

    /// A Slack message: the rendering as `text`, and the fields it came with.
    private static let slackRows = [
        row("payload.text", .text), row("payload.username", .text), row("payload.icon_emoji", .text),
        row("payload.icon_url", .text), row("payload.channel", .text), row("payload.blocks", .any),
        row("payload.attachments", .any),
    ]

    /// The tree an incident's `title:` reads: `incident`.
    static func title() -> TemplateShape {
        TemplateShape.make(incidentRows, names: TemplateShape.Names())
    }

    /// The tree an incident's `line:` reads: `alert`, one alert of the incident.
    static func line() -> TemplateShape {
        TemplateShape.make(lineRows, names: TemplateShape.Names())
    }

    private static func row(_ path: String, _ type: TemplateType) -> TemplateVariable {
        TemplateVariable(path, type, .webhook, "a field of the alert bridge's values (docs/alerts.md)")
    }

    private static func shape(of rows: [TemplateVariable], root: String) -> TemplateShape {
        TemplateShape.make(rows, names: TemplateShape.Names()).field(root) ?? TemplateShape(type: .any, source: .webhook)
    }

    /// A notification's fields, its alerts' (`alert`, relative) under each of its lists.
    private static func payloadRows(alert: [TemplateVariable]) -> [TemplateVariable] {
        var rows = [
            row("payload.version", .text), row("payload.status", .text), row("payload.receiver", .text),
            row("payload.groupKey", .text), row("payload.truncatedAlerts", .number),
            row("payload.groupLabels.*", .text), row("payload.commonLabels.*", .text),
            row("payload.commonAnnotations.*", .text), row("payload.externalURL", .text),
            row("payload.fingerprints", .text), row("payload.alertKeys", .text),
            row("payload.firingCount", .number), row("payload.resolvedCount", .number),
            row("payload.notification_reason", .text),
        ]
        for list in ["alerts", "firing", "resolved"] {
            rows.append(row("payload.\(list)", .list(.object)))
            rows += alert.map { row("payload.\(list).#.\($0.path)", $0.type) }
        }
        return rows
    }

    /// One alert's fields, relative to the alert.
    private static let alertRows = [
        row("status", .text), row("labels.*", .text), row("annotations.*", .text), row("startsAt", .time),
        row("endsAt", .time), row("generatorURL", .text), row("fingerprint", .text),
    ]

    /// What a Grafana alert adds.
    private static let grafanaAlertRows = [
        row("values.*", .number), row("valueString", .text), row("silenceURL", .text), row("dashboardURL", .text),
        row("panelURL", .text), row("imageURL", .text), row("orgId", .number),
    ]

    private static let lineRows = [
        row("alert.fingerprint", .text), row("alert.labels.*", .text), row("alert.annotations.*", .text),
        row("alert.status", .text), row("alert.flaps", .number),
    ]

    private static let incidentRows = [
        row("incident.groupKey", .text), row("incident.groupLabels.*", .text), row("incident.commonLabels.*", .text),
        row("incident.commonAnnotations.*", .text), row("incident.externalURL", .text),
        row("incident.firingCount", .number), row("incident.resolvedCount", .number),
        row("incident.flapCount", .number), row("incident.acknowledgedBy", .text), row("incident.status", .text),
    ]
}
