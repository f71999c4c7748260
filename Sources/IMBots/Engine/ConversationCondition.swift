import IMProtocol

/// `in:`, `direct:`, `group:`, `room:`: where the event happened.
enum ConversationCondition: Sendable {
    /// The conversation matches one of the patterns; `key` is the matcher's name for
    /// explanations (`in`, `group`, `room`).
    case within([ConversationPattern], key: String)
    /// The conversation is (`true`) or is not (`false`) of this kind.
    case kind(ConversationKind, Bool)

    func matches(_ facts: inout EventFacts) -> Bool {
        guard let conversation = facts.event.conversation else { return false }
        switch self {
        case .within(let patterns, _): return patterns.contains { $0.matches(conversation) }
        case .kind(let kind, let wanted): return (conversation.kind == kind) == wanted
        }
    }

    func failure(_ facts: inout EventFacts) -> String {
        guard let conversation = facts.event.conversation else {
            return "\(key): the event has no conversation"
        }
        let actual = conversation.address.description
        switch self {
        case .within(let patterns, let key):
            return "\(key): conversation is \(actual), rule wants [\(patterns.map(\.description).joined(separator: ", "))]"
        case .kind(let kind, let wanted):
            return wanted ? "\(key): conversation is \(actual), rule wants a \(kind.rawValue) conversation"
                : "\(key): conversation is \(actual), rule wants one that is not \(kind.rawValue)"
        }
    }

    var summary: String {
        switch self {
        case .within(let patterns, _):
            "conversation is one of [\(patterns.map(\.description).joined(separator: ", "))]"
        case .kind(let kind, let wanted):
            wanted ? "conversation is \(kind.rawValue)" : "conversation is not \(kind.rawValue)"
        }
    }

    private var key: String {
        switch self {
        case .within(_, let key): key
        case .kind(let kind, _): kind.rawValue
        }
    }
}
