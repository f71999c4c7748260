import IMProtocol

/// The incidents of one bot's alert route: alert group → incident (and its living
/// message). Plain `Codable` state for the bot's journal; ``IncidentTracker`` drives it.
public struct IncidentBook: Sendable, Hashable, Codable {
    /// Incidents by group key: open ones, and closed ones until their retention ends.
    public private(set) var incidents: [String: Incident] = [:]

    /// An empty book.
    public init() {}

    /// The incident whose living message is `messageID`.
    public func incident(messageID: MessageID) -> Incident? {
        incidents.values.first { $0.messageID == messageID }
    }

    subscript(groupKey: String) -> Incident? {
        get { incidents[groupKey] }
        set { incidents[groupKey] = newValue }
    }

    /// Drops closed incidents past `retainClosed`, then the least recently updated ones
    /// past `maxIncidents`.
    mutating func prune(now: Int64, policy: IncidentPolicy) {
        let cutoff = now - policy.retainClosed.milliseconds
        func expired(_ incident: Incident) -> Bool { incident.isClosed && incident.updatedAt < cutoff }
        // Filtered only when something goes: every notification prunes.
        if incidents.values.contains(where: expired) { incidents = incidents.filter { !expired($0.value) } }
        // Past the bound (by one, as a rule: each notification adds at most one), the least
        // recently updated go one at a time; sorting the whole book on every notification
        // was most of the bridge's time with a thousand open incidents.
        while incidents.count > max(policy.maxIncidents, 0),
              let oldest = incidents.min(by: { ($0.value.updatedAt, $0.key) < ($1.value.updatedAt, $1.key) })?.key {
            incidents[oldest] = nil
        }
    }
}
