import IMProtocol

/// A silence proposed by `/silence`, shown for `/confirm`: the matchers it will create
/// and the alerts it will mute.
public struct SilenceDraft: Sendable, Hashable, Codable {
    /// The matchers the silence will have.
    public var matchers: [SilenceMatcher]
    /// How long it lasts from confirmation.
    public var duration: Duration
    /// The reason given after the duration, the silence's comment.
    public var reason: String?
    /// Who proposed it; only they can confirm it.
    public var proposedBy: String
    /// The group the incident message belongs to.
    public var groupKey: String
    /// Display names of the incident's alerts the matchers select.
    public var mutedAlerts: [String]
    /// After this (wall milliseconds) `/confirm` no longer creates it.
    public var expiresAt: Int64
    /// How long `/confirm` is accepted, as the preview tells.
    public var confirmWithin: Duration

    /// Drafts a silence of `incident`'s group: one equality matcher per label that
    /// names the group (`groupLabels`, or `commonLabels` when the route groups by
    /// nothing), so it mutes this group and nothing wider, narrowed by the `extra`
    /// matchers `/silence` was given (`instance=api-2`); one of those on a label of the
    /// group takes that label's place.
    public init?(incident: Incident, duration: Duration, matchers extra: [SilenceMatcher] = [], reason: String?,
                 proposedBy: String, now: Int64, confirmWithin: Duration = .seconds(300),
                 renderer: IncidentRenderer = IncidentRenderer()) {
        let names = Set(extra.map(\.name))
        let matchers = Self.groupMatchers(of: incident).filter { !names.contains($0.name) } + extra
        guard !matchers.isEmpty else { return nil }
        self.matchers = matchers
        self.duration = duration
        self.reason = reason
        self.proposedBy = proposedBy
        groupKey = incident.groupKey
        mutedAlerts = incident.instances
            .filter { instance in matchers.allSatisfy { $0.matches(instance.labels) } }
            .map { renderer.displayName($0, commonLabels: incident.commonLabels) }
        expiresAt = now + confirmWithin.milliseconds
        self.confirmWithin = confirmWithin
    }

    /// One equality matcher per label that names `incident`'s group: its `groupLabels`,
    /// or its `commonLabels` when the route groups by nothing.
    static func groupMatchers(of incident: Incident) -> [SilenceMatcher] {
        let labels = incident.groupLabels.isEmpty ? incident.commonLabels : incident.groupLabels
        return labels.keys.sorted().map { SilenceMatcher(name: $0, value: labels[$0] ?? "") }
    }

    /// The reply asking for `/confirm`.
    public var preview: String {
        var lines = ["Silence for \(Self.format(duration)) with matchers:"]
        lines += matchers.map { "  \($0)" }
        lines.append("It mutes \(mutedAlerts.count) alert\(mutedAlerts.count == 1 ? "" : "s") of this incident"
                     + (mutedAlerts.isEmpty ? "." : ": " + mutedAlerts.prefix(10).joined(separator: ", ")
                        + (mutedAlerts.count > 10 ? " and \(mutedAlerts.count - 10) more." : ".")))
        lines.append("Reply /confirm within \(Self.format(confirmWithin)) to create it.")
        return MarkedParts.split(lines.joined(separator: "\n"))[0]
    }

    /// The API request, starting at `now`.
    public func request(now: Int64) -> SilenceRequest {
        SilenceRequest(matchers: matchers, start: Timestamp(milliseconds: now), duration: duration,
                       createdBy: proposedBy, comment: reason ?? "silenced from chat by \(proposedBy)")
    }

    /// `2h`, `1d 4h`, `30m`.
    static func format(_ duration: Duration) -> String {
        var seconds = duration.components.seconds
        var parts: [String] = []
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)] where seconds >= size {
            parts.append("\(seconds / size)\(unit)")
            seconds %= size
        }
        return parts.isEmpty ? "\(seconds)s" : parts.joined(separator: " ")
    }
}
