/// One rule of a bot: when it matches, what it does, and how.
///
/// Built by the loader from the bot file; its conditions are compiled there (regexes,
/// word lists, command names), so evaluating it allocates little. A class: a rule that
/// fires is handed on in the decision, and a reference is cheaper to pass than its fields.
public final class Rule: Sendable {
    /// The rule's name, unique in its bot.
    public let name: String
    /// How its match takes effect.
    public let mode: RuleMode
    /// Where the rule starts in its file.
    public let location: SourceLocation
    /// Its actions, in order.
    public let actions: [Action]
    /// Its `examples:`, run by `switchboard test`.
    public let examples: [RuleExample]
    /// The kinds of events it considers.
    public let events: EventFilter
    /// Whether it holds a `stop` action, which ends evaluation when it fires (unless
    /// it is a shadow rule).
    public let stops: Bool
    /// Its conditions, as written.
    let when: ConditionSet
    /// What its actions' templates read about the sender, which the runner looks up
    /// only once the rule fires.
    public let actionLookups: SenderLookups
    /// Whether it calls out over HTTP when it fires (enforced): the runner then hands the
    /// event to its conversation's lane, so a slow endpoint holds up only that conversation.
    public let callsOut: Bool

    init(name: String, mode: RuleMode, location: SourceLocation, when: ConditionSet,
         actions: [Action], examples: [RuleExample]) {
        self.name = name
        self.mode = mode
        self.location = location
        self.when = when
        self.actions = actions
        self.examples = examples
        self.events = when.events ?? .messages
        self.stops = actions.contains { $0.kind == .stop }
        self.actionLookups = SenderLookups.of(actions)
        self.callsOut = mode == .enforce && actions.contains { $0.kind == .http }
    }

    /// Whether the rule's `stop` ends evaluation when it fires.
    var endsEvaluation: Bool { stops && mode != .shadow }

    /// The command names a top-level `command` matcher requires, for indexing; nil when
    /// the rule has none.
    var requiredCommands: Set<String>? {
        for condition in when.conditions {
            if case .command(let command) = condition { return command.names }
        }
        return nil
    }
}
