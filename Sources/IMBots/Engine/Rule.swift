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
    /// The kinds of events it considers. Without `event:`, messages, and their edits too
    /// when the rule judges what a message says (``ConditionSet/judgesText``) and takes no
    /// command, unless it says `on_edit: false`.
    public let events: EventFilter
    /// `on_edit:` as written: nil lets the rule's conditions decide.
    let onEdit: Bool?
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
    /// The `as` names of its `http` actions, each with where its action is written, for
    /// the template check (read from the file, so that an action that failed to decode
    /// still counts).
    let results: [(name: String, location: SourceLocation)]
    /// Whether its `when` and its `do` decoded whole; when not, the template check does not
    /// judge what they would have provided (their own problems are reported).
    let decodedWhen: Bool
    let decodedActions: Bool
    /// Its `dedupe:` as written (webhook rules only).
    let dedupe: DedupeSpec?
    /// Its webhook trigger, for a webhook rule (which no feed event fires).
    let webhook: WebhookCondition?

    init(name: String, mode: RuleMode, location: SourceLocation, when: ConditionSet,
         actions: [Action], examples: [RuleExample],
         results: [(name: String, location: SourceLocation)] = [], decodedWhen: Bool = true,
         decodedActions: Bool = true, dedupe: DedupeSpec? = nil, onEdit: Bool? = nil) {
        self.results = results
        self.decodedWhen = decodedWhen
        self.decodedActions = decodedActions
        self.name = name
        self.mode = mode
        self.location = location
        self.when = when
        self.actions = actions
        self.examples = examples
        self.dedupe = dedupe
        self.webhook = when.webhook
        self.onEdit = onEdit
        self.events = when.webhook != nil ? .only([]) : when.events ?? Self.defaultEvents(when, onEdit: onEdit)
        self.stops = actions.contains { $0.kind == .stop }
        self.actionLookups = SenderLookups.of(actions)
        self.callsOut = mode == .enforce && actions.contains { $0.kind == .http }
    }

    /// What a rule without `event:` considers: messages, and edits of them when it judges
    /// their text (or `on_edit: true` says so).
    static func defaultEvents(_ when: ConditionSet, onEdit: Bool?) -> EventFilter {
        onEdit ?? (when.judgesText && !when.hasCommand) ? .only([.message, .messageEdited]) : .messages
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
