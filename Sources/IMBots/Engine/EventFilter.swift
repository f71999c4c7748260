import IMProtocol

/// Which kinds of events a rule considers: set by `event:` in its `when`, `message`
/// otherwise.
public enum EventFilter: Sendable, Hashable, CustomStringConvertible {
    /// Every kind of event (`event: any`).
    case any
    /// Only these kinds.
    case only(Set<EventType>)

    /// Only `message` events: the default.
    public static let messages = EventFilter.only([.message])

    /// Whether an event of this kind is considered.
    public func accepts(_ type: EventType) -> Bool {
        switch self {
        case .any: true
        case .only(let types): types.contains(type)
        }
    }

    /// `any`, or the kinds sorted by name.
    public var description: String {
        switch self {
        case .any: "any"
        case .only(let types): types.map(\.rawValue).sorted().joined(separator: ", ")
        }
    }
}
