import IMProtocol

/// One matcher of a rule's `when`, compiled.
///
/// To add a matcher (the `schedule` and `rate` matchers are planned): add a case here
/// with its evaluation, explanation and cost, its key in `ConditionSet+Decoding.swift`
/// (where it is now reported as not available), and any per-event data it needs to
/// `EventFacts` or `BotEvent`, as `webhook` did.
enum Condition: Sendable {
    case text(TextCondition)
    case command(CommandCondition)
    case from(SenderCondition)
    case member(MemberCondition)
    case conversation(ConversationCondition)
    /// `mentions_me: true` (or `false`: does not mention the bot).
    case mentionsMe(Bool)
    case time(TimeWindow)
    /// At least one of the alternatives holds; the first that does binds.
    case any([ConditionSet])
    /// The conditions do not all hold; nothing inside binds.
    case not(ConditionSet)
    /// `rate`, `repeated`, `links`, `mentions`, `state` (`IMBots/Moderation/Matchers`).
    case moderation(ModerationCondition)
    /// A webhook delivery on a path, with its `match:` (only at the top of a `when`).
    case webhook(WebhookCondition)

    func matches(_ facts: inout EventFacts, _ bindings: inout Bindings) -> Bool {
        switch self {
        case .text(let text): return text.matches(&facts, &bindings)
        case .command(let command): return command.matches(&facts, &bindings)
        case .from(let sender): return sender.matches(&facts)
        case .member(let member): return member.matches(&facts)
        case .conversation(let conversation): return conversation.matches(&facts)
        case .mentionsMe(let wanted): return facts.text != nil && facts.mentionsBot == wanted
        case .time(let window): return window.matches(&facts)
        case .any(let alternatives):
            for alternative in alternatives {
                var scratch = bindings
                if alternative.matches(&facts, &scratch) {
                    bindings = scratch
                    return true
                }
            }
            return false
        case .not(let inner):
            var scratch = bindings
            return !inner.matches(&facts, &scratch)
        case .moderation(let condition): return condition.matches(&facts)
        case .webhook(let webhook):
            return webhook.matches(facts)
        }
    }

    /// Why the condition does not hold, for a person; call only when it does not.
    func failure(_ facts: inout EventFacts) -> String {
        switch self {
        case .text(let text): return text.failure(&facts)
        case .command(let command): return command.failure(&facts)
        case .from(let sender): return sender.failure(&facts)
        case .member(let member): return member.failure(facts) ?? "member: does not match"
        case .conversation(let conversation): return conversation.failure(&facts)
        case .mentionsMe(let wanted):
            guard facts.text != nil else { return "mentions_me: the event has no text" }
            return wanted ? "mentions_me: text does not mention @\(facts.botUsername)"
                : "mentions_me: text mentions @\(facts.botUsername), rule wants it not to"
        case .time(let window): return window.failure(&facts)
        case .any(let alternatives):
            var reasons: [String] = []
            for (index, alternative) in alternatives.enumerated() {
                var scratch = Bindings()
                let reason = alternative.firstFailure(&facts, &scratch) ?? "holds"
                reasons.append("(\(index + 1)) \(reason)")
            }
            return "any: none of the alternatives holds: " + reasons.joined(separator: "; ")
        case .not(let inner):
            return "not: " + inner.summary + " holds"
        case .moderation(let condition): return condition.failure(&facts)
        case .webhook(let webhook):
            return webhook.failure(facts)
        }
    }

    /// What the condition requires, for a person.
    var summary: String {
        switch self {
        case .text(let text): text.summary
        case .command(let command): command.summary
        case .from(let sender): sender.summary
        case .member(let member): member.summary
        case .conversation(let conversation): conversation.summary
        case .mentionsMe(let wanted): wanted ? "text mentions the bot" : "text does not mention the bot"
        case .time(let window): window.summary
        case .any(let alternatives): "any of (" + alternatives.map(\.summary).joined(separator: " | ") + ")"
        case .not(let inner): "not (" + inner.summary + ")"
        case .moderation(let condition): condition.summary
        case .webhook(let webhook): webhook.summary
        }
    }

    /// What the condition needs the runner to look up about the sender.
    var lookups: SenderLookups {
        switch self {
        case .from(let sender):
            (sender.bots != nil ? SenderLookups.profile : []).union(sender.role != nil ? .role : [])
                .union(sender.joinedWithin != nil ? .joined : [])
        case .member(let member): member.role != nil ? .memberRole : []
        case .any(let alternatives): alternatives.reduce([]) { $0.union($1.lookups) }
        case .not(let inner): inner.lookups
        case .text, .command, .conversation, .mentionsMe, .time, .moderation, .webhook: []
        }
    }

    /// Whether it judges what a message says (its text, links, mentions) or counts
    /// messages (`rate`, `repeated`): a rule with one judges edits as well, unless it
    /// says `on_edit: false`.
    var judgesText: Bool {
        switch self {
        case .text, .mentionsMe, .moderation(.window), .moderation(.count): true
        case .any(let alternatives): alternatives.contains { $0.judgesText }
        case .not(let inner): inner.judgesText
        default: false
        }
    }

    /// Whether it is, or holds, a `command` matcher: a command acts once, so an edit of
    /// one does not run it again.
    var hasCommand: Bool {
        switch self {
        case .command: true
        case .any(let alternatives): alternatives.contains { $0.hasCommand }
        case .not(let inner): inner.hasCommand
        default: false
        }
    }

    /// Relative evaluation cost: cheap conditions run first, so expensive ones (regexes)
    /// only run for events that passed the rest.
    var cost: Int {
        switch self {
        case .conversation, .from, .member, .webhook: 1
        case .command: 2
        case .mentionsMe: 12
        case .time: 20
        case .text(let text): text.cost
        case .any(let alternatives): alternatives.map(\.cost).max() ?? 1
        case .not(let inner): inner.cost
        case .moderation(let condition): condition.cost
        }
    }
}

/// Conditions that must all hold: a `when` mapping.
final class ConditionSet: Sendable {
    /// The conditions in the order written, for explanations.
    let conditions: [Condition]
    /// The `event:` filter; only the top-level `when` may set one.
    let events: EventFilter?
    /// The conditions cheapest first, for evaluation. Conditions have no side effects
    /// besides bindings, so the order does not change the outcome.
    private let ordered: [Condition]

    init(conditions: [Condition], events: EventFilter?) {
        self.conditions = conditions
        self.events = events
        self.ordered = conditions.indices.sorted { lhs, rhs in
            let (l, r) = (conditions[lhs].cost, conditions[rhs].cost)
            return l == r ? lhs < rhs : l < r
        }.map { conditions[$0] }
    }

    /// No conditions: holds for every event the filter lets through.
    static let empty = ConditionSet(conditions: [], events: nil)

    func matches(_ facts: inout EventFacts, _ bindings: inout Bindings) -> Bool {
        for condition in ordered where !condition.matches(&facts, &bindings) { return false }
        return true
    }

    /// The conversation kinds an event must have for these conditions to hold, judged
    /// from the top-level place conditions; nil when any kind (or none) may do.
    var conversationKinds: Set<ConversationKind>? {
        var kinds: Set<ConversationKind>?
        for condition in conditions {
            guard case .conversation(let place) = condition, let allowed = place.kinds else { continue }
            kinds = kinds.map { $0.intersection(allowed) } ?? allowed
        }
        return kinds
    }

    /// The first condition in written order that does not hold, explained; nil when all
    /// hold (and then `bindings` holds what they bound).
    func firstFailure(_ facts: inout EventFacts, _ bindings: inout Bindings) -> String? {
        for condition in conditions where !condition.matches(&facts, &bindings) {
            return condition.failure(&facts)
        }
        return nil
    }

    var summary: String {
        conditions.isEmpty ? "always" : conditions.map(\.summary).joined(separator: " and ")
    }

    var cost: Int { conditions.map(\.cost).max() ?? 1 }

    var lookups: SenderLookups { conditions.reduce([]) { $0.union($1.lookups) } }

    /// Whether a condition judges what a message says (``Condition/judgesText``).
    var judgesText: Bool { conditions.contains { $0.judgesText } }

    /// Whether a condition is or holds a `command` matcher.
    var hasCommand: Bool { conditions.contains { $0.hasCommand } }

    /// The webhook trigger, when this is a webhook rule's `when`.
    var webhook: WebhookCondition? {
        for condition in conditions {
            if case .webhook(let webhook) = condition { return webhook }
        }
        return nil
    }
}
