import IMProtocol

/// What the runner does in the conversation for an incident, in order.
public enum IncidentEffect: Sendable, Hashable {
    /// Post the living message with this idempotency key, then report its id with
    /// ``IncidentTracker/recordPosted(groupKey:messageID:)``. Emitted again (same key,
    /// newer text) while no id is recorded, so a crash between post and record is healed
    /// by the server returning the first message for the repeated key.
    case post(groupKey: String, clientMessageID: String, text: String)
    /// Edit the living message in place.
    case edit(groupKey: String, messageID: MessageID, text: String)
    /// A short reply to the living message; `to` is nil when the message is the one the
    /// `post` before it in the same list creates.
    case reply(groupKey: String, to: MessageID?, text: String)
}

extension IncidentEffect {
    /// The alert group it is about.
    public var groupKey: String {
        switch self {
        case .post(let groupKey, _, _), .edit(let groupKey, _, _), .reply(let groupKey, _, _): groupKey
        }
    }
}

extension [IncidentEffect] {
    /// The groups these effects are about.
    var groups: Set<String> { Set(map(\.groupKey)) }
}

/// The limits and timing of incidents.
public struct IncidentPolicy: Sendable, Hashable, Codable {
    /// How long a resolve is held before it is shown; a fire within it counts a flap
    /// instead. Zero shows resolves at once.
    public var flapHold: Duration
    /// Instances one incident keeps at most.
    public var maxInstances: Int
    /// Open incidents kept at most; past it the least recently updated is dropped
    /// (its message stays as it was).
    public var maxIncidents: Int
    /// How long a closed incident stays findable by its message (for `/ack` and
    /// `/silence` replies) and keeps its group's message for a quick re-fire.
    public var retainClosed: Duration

    /// The defaults: a 5-minute hold, 1,000 alerts and incidents, closed ones kept a day.
    public init(flapHold: Duration = .seconds(300), maxInstances: Int = 1000, maxIncidents: Int = 1000,
                retainClosed: Duration = .seconds(86_400)) {
        self.flapHold = flapHold
        self.maxInstances = maxInstances
        self.maxIncidents = maxIncidents
        self.retainClosed = retainClosed
    }
}
