import IMProtocol
import Templates

/// Renders an incident's living message and its short replies.
///
/// The living message is edited in place for the whole life of the incident, so it must
/// always fit the server's limit (``IMProtocol/Limits/messageTextLength``): instances
/// that do not fit are summed up as "…and 14 more" instead of being split.
public struct IncidentRenderer: Sendable {
    /// User templates, Mustache; nil parts use the built-in form.
    public struct Templates: Sendable {
        /// The first line's title, reading `incident`, e.g.
        /// `{{incident.commonLabels.alertname}} on {{incident.commonLabels.cluster}}`.
        public var title: Template?
        /// One instance's line, reading `alert`, e.g.
        /// `{{alert.labels.instance}}: {{alert.annotations.summary}}`.
        public var line: Template?

        /// Templates for the title and the line; nil keeps the built-in form.
        public init(title: Template? = nil, line: Template? = nil) {
            self.title = title
            self.line = line
        }
    }

    /// The user templates, if any.
    public var templates: Templates
    /// Characters a message may have (the server's limit).
    public var limit: Int
    /// Characters one instance line may have before it is cut with "…".
    public var maxLineLength: Int

    /// Creates a renderer; the limit defaults to the server's and is at least 200.
    public init(templates: Templates = Templates(), limit: Int = Limits.messageTextLength.upperBound,
                maxLineLength: Int = 300) {
        self.templates = templates
        self.limit = max(limit, 200)
        self.maxLineLength = max(maxLineLength, 40)
    }

    /// The living message for `incident`; never longer than ``limit`` characters.
    public func message(for incident: Incident) -> String {
        let closed = incident.isClosed
        var status = closed ? "✅ RESOLVED: " : "🔥 FIRING: "
        status += title(of: incident)
        var head = [status.truncated(to: maxLineLength)]
        var facts = ["\(incident.firingCount) firing", "\(incident.resolvedCount) resolved"]
        if incident.flapCount > 0 { facts.append("flapped \(incident.flapCount)×") }
        if let user = incident.acknowledgedBy { facts.append("acknowledged by \(user)") }
        if closed, let note = incident.closedNote { facts.append(note) }
        head.append(facts.joined(separator: " · "))
        if !closed {
            let silences = incident.activeSilences
            for silence in silences.prefix(3) {
                let muted = incident.instances.filter { $0.showsFiring && ($0.silencedBy ?? []).contains(silence.id) }.count
                let count = muted == incident.firingCount ? "" : " (\(muted) of \(incident.firingCount) alerts)"
                head.append("🔕 silenced by \(silence.createdBy.singleLine) until \(Self.time(silence.endsAt))\(count)"
                    .truncated(to: maxLineLength))
            }
            if silences.count > 3 { head.append("🔕 and \(silences.count - 3) more silences") }
        }
        let shared = incident.commonLabels.filter { $0.key != "alertname" }
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        if !shared.isEmpty { head.append(shared.truncated(to: maxLineLength)) }

        var tail: [String] = []
        if incident.truncatedAlerts > 0 { tail.append("(\(incident.truncatedAlerts) more alerts were left out by the source)") }
        if incident.droppedInstances > 0 {
            tail.append("(\(incident.droppedInstances) more alerts not tracked: this incident is full)")
        }

        return Self.fit(head: head, lines: lines(for: incident), tail: tail, limit: limit)
    }

    /// One line per alert, firing ones first, as the living message lists them (before
    /// it is fitted to the limit).
    public func lines(for incident: Incident) -> [String] {
        let ordered = incident.instances.filter(\.showsFiring) + incident.instances.filter { !$0.showsFiring }
        return ordered.map { line(for: $0, commonLabels: incident.commonLabels) }
    }

    /// The short reply for one change, nil for changes shown only in the message (flaps).
    public func reply(for change: IncidentChange, in incident: Incident) -> String? {
        func names(_ fingerprints: [String]) -> String {
            let shown = fingerprints.prefix(5).compactMap { fingerprint in
                incident.index(of: fingerprint).map { displayName(incident.instances[$0], commonLabels: incident.commonLabels) }
            }
            let more = fingerprints.count - shown.count
            return shown.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
        }
        let text: String
        switch change {
        case .newAlerts(let fingerprints):
            text = "🔥 \(fingerprints.count) new: \(names(fingerprints))"
        case .refired(let fingerprints):
            text = "🔥 firing again: \(names(fingerprints))"
        case .resolved(let fingerprints):
            text = incident.isClosed ? "✅ all resolved: \(title(of: incident))" : "✅ resolved: \(names(fingerprints))"
        case .gone(let fingerprints, let silenced):
            let how = silenced ? "while silenced" : "(no longer in Alertmanager)"
            text = incident.isClosed ? "✅ all resolved \(how): \(title(of: incident))"
                : "✅ resolved \(how): \(names(fingerprints))"
        case .flapped, .closedByHand:
            // A flap shows as a count; a close by hand is answered by its command.
            return nil
        }
        return text.truncated(to: limit)
    }

    /// `2026-01-05 11:00 UTC`.
    static func time(_ milliseconds: Int64) -> String {
        Timestamp(milliseconds: milliseconds).rfc3339.prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC"
    }

    /// The incident's title: the user template, or the alert name, or the group labels.
    func title(of incident: Incident) -> String {
        if let template = templates.title {
            return template.render(["incident": incident.templateValue], escaping: .none).singleLine
        }
        if let name = incident.groupLabels["alertname"] ?? incident.commonLabels["alertname"] {
            return name
        }
        let labels = incident.groupLabels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return labels.isEmpty ? "alert group" : labels.joined(separator: " ")
    }

    func line(for instance: Incident.Instance, commonLabels: [String: String]) -> String {
        let marker = instance.showsFiring ? "• " : "✓ "
        let body: String
        if let template = templates.line {
            body = template.render(["alert": instance.templateValue], escaping: .none).singleLine
        } else {
            let name = displayName(instance, commonLabels: commonLabels)
            let summary = instance.annotations["summary"] ?? instance.annotations["description"] ?? ""
            body = summary.isEmpty ? name : "\(name): \(summary.singleLine)"
        }
        return (marker + body).truncated(to: maxLineLength)
    }

    /// What tells an instance apart: its `instance` label, else the labels it does not
    /// share with the group, else its fingerprint.
    func displayName(_ instance: Incident.Instance, commonLabels: [String: String]) -> String {
        if let name = instance.labels["instance"] { return name }
        let own = instance.labels.filter { commonLabels[$0.key] != $0.value }.sorted { $0.key < $1.key }
        if own.isEmpty { return instance.fingerprint }
        return own.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// Joins head, as many lines as fit with room for "…and N more", and tail.
    static func fit(head: [String], lines: [String], tail: [String], limit: Int) -> String {
        var text = head.joined(separator: "\n")
        let tailText = tail.isEmpty ? "" : "\n" + tail.joined(separator: "\n")
        var used = text.count + tailText.count
        for (index, line) in lines.enumerated() {
            let remaining = lines.count - index - 1
            let reserve = remaining > 0 ? "\n…and \(remaining) more".count : 0
            if used + 1 + line.count + reserve <= limit {
                text += "\n" + line
                used += 1 + line.count
            } else {
                text += "\n…and \(lines.count - index) more"
                break
            }
        }
        return (text + tailText).truncated(to: limit)
    }
}

extension Incident {
    /// The incident as a title template sees it.
    public var templateValue: TemplateValue {
        .object([
            "groupKey": .string(groupKey),
            "groupLabels": .labels(groupLabels),
            "commonLabels": .labels(commonLabels),
            "commonAnnotations": .labels(commonAnnotations),
            "externalURL": .string(externalURL),
            "firingCount": .int(firingCount),
            "resolvedCount": .int(resolvedCount),
            "flapCount": .int(flapCount),
            "acknowledgedBy": acknowledgedBy.map(TemplateValue.string) ?? .null,
            "status": .string(isClosed ? "resolved" : "firing"),
        ])
    }
}

extension Incident.Instance {
    /// One instance as a line template sees it.
    public var templateValue: TemplateValue {
        .object([
            "fingerprint": .string(fingerprint),
            "labels": .labels(labels),
            "annotations": .labels(annotations),
            "status": .string(showsFiring ? "firing" : "resolved"),
            "flaps": .int(flaps),
        ])
    }
}

extension String {
    /// At most `count` characters, the last one "…" when cut.
    func truncated(to count: Int) -> String {
        self.count <= count ? self : String(prefix(Swift.max(count - 1, 0))) + "…"
    }

    /// Line breaks turned into spaces, for text that must stay on its line.
    var singleLine: String {
        split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
