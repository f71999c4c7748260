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
        incidents = incidents.filter { !($0.value.isClosed && $0.value.updatedAt < cutoff) }
        if incidents.count > policy.maxIncidents {
            let oldest = incidents.values.sorted { ($0.updatedAt, $0.groupKey) < ($1.updatedAt, $1.groupKey) }
            for incident in oldest.prefix(incidents.count - policy.maxIncidents) {
                incidents[incident.groupKey] = nil
            }
        }
    }
}
