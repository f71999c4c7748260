import IMProtocol

/// `in:`, `direct:`, `group:`, `room:`: where the event happened.
final class ConversationCondition: Sendable {
    enum Test: Sendable {
        /// The conversation matches one of the patterns; `key` is the matcher's name for
        /// explanations (`in`, `group`, `room`).
        case within([ConversationPattern], key: String)
        /// The conversation is (`true`) or is not (`false`) of this kind.
        case kind(ConversationKind, Bool)
    }

    let test: Test

    init(_ test: Test) {
        self.test = test
    }

    static func within(_ patterns: [ConversationPattern], key: String) -> ConversationCondition {
        ConversationCondition(.within(patterns, key: key))
    }

    static func kind(_ kind: ConversationKind, _ wanted: Bool) -> ConversationCondition {
        ConversationCondition(.kind(kind, wanted))
    }

    /// The conversation kinds this condition can accept; nil when it can accept any.
    var kinds: Set<ConversationKind>? {
        switch test {
        case .kind(let kind, true):
            return [kind]
        case .kind(let kind, false):
            return Set(ConversationKind.allCases).subtracting([kind])
        case .within(let patterns, _):
            var kinds = Set<ConversationKind>()
            for pattern in patterns {
                switch pattern {
                case .direct, .user: kinds.insert(.direct)
                case .group, .anyGroup: kinds.insert(.group)
                case .room, .anyRoom: kinds.insert(.room)
                case .id: return nil
                }
            }
            return kinds
        }
    }

    func matches(_ facts: inout EventFacts) -> Bool {
        guard let conversation = facts.conversation else { return false }
        switch test {
        case .within(let patterns, _): return patterns.contains { $0.matches(conversation) }
        case .kind(let kind, let wanted): return (conversation.kind == kind) == wanted
        }
    }

    func failure(_ facts: inout EventFacts) -> String {
        guard let conversation = facts.conversation else {
            return "\(key): the event has no conversation"
        }
        let actual = conversation.address.description
        switch test {
        case .within(let patterns, let key):
            return "\(key): conversation is \(actual), rule wants [\(patterns.map(\.description).joined(separator: ", "))]"
        case .kind(let kind, let wanted):
            return wanted ? "\(key): conversation is \(actual), rule wants a \(kind.rawValue) conversation"
                : "\(key): conversation is \(actual), rule wants one that is not \(kind.rawValue)"
        }
    }

    var summary: String {
        switch test {
        case .within(let patterns, _):
            "conversation is one of [\(patterns.map(\.description).joined(separator: ", "))]"
        case .kind(let kind, let wanted):
            wanted ? "conversation is \(kind.rawValue)" : "conversation is not \(kind.rawValue)"
        }
    }

    private var key: String {
        switch test {
        case .within(_, let key): key
        case .kind(let kind, _): kind.rawValue
        }
    }
}
