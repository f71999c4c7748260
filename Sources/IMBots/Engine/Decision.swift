/// What a rule's match binds for its templates: regex captures, command arguments.
public struct Bindings: Sendable, Hashable {
    /// The whole match of the rule's regex (`matched` in templates).
    public var matched: String?
    /// Regex groups: `1`... the numbered groups, counting from 1 as every position does,
    /// and named groups by name (`match.<name>` in templates).
    public var match: [String: String]
    /// A command's arguments as one string (`args`), when a `command` matcher matched.
    public var args: String?
    /// A command's arguments split at whitespace (`argv`).
    public var argv: [String]?

    /// No bindings; cheaper than building empty ones for every rule tested.
    static let none = Bindings()

    /// Creates bindings; empty by default.
    public init(matched: String? = nil, match: [String: String] = [:], args: String? = nil, argv: [String]? = nil) {
        self.matched = matched
        self.match = match
        self.args = args
        self.argv = argv
    }
}

/// The rules that fire for one event, in order: what `RuleEngine.decide` returns and
/// `ActionRunner.run` performs.
public struct Decision: Sendable {
    /// Why an event was not considered at all.
    public enum Ignored: Sendable, Hashable, CustomStringConvertible {
        /// The bot caused the event itself (its own message, its own join...).
        case ownEvent
        /// The conversation is not in the bot's `listen` list.
        case outsideListen(String)
        /// A server notice, not something a person wrote.
        case systemMessage

        /// A sentence for logs and `explain`.
        public var description: String {
            switch self {
            case .ownEvent: "the bot caused this event itself"
            case .outsideListen(let address): "\(address) is not in the bot's listen list"
            case .systemMessage: "system notices are not handled by rules"
            }
        }
    }

    /// One rule that fired, with what its match bound.
    public struct Firing: Sendable {
        /// The rule.
        public let rule: Rule
        /// Captures and command arguments for its templates.
        public let bindings: Bindings

        /// Creates a firing.
        public init(rule: Rule, bindings: Bindings) {
            self.rule = rule
            self.bindings = bindings
        }

        /// The rule's mode: whether its actions are performed.
        public var mode: RuleMode { rule.mode }
    }

    /// The bot's name, for outgoing message ids.
    public var bot: String
    /// The rules that fired, in rule order; shadow rules included.
    public var firings: [Firing]
    /// Set when the event was not considered at all; `firings` is then empty.
    public var ignored: Ignored?
    /// The rule whose `stop` ended evaluation, if one did.
    public var stoppedBy: String?
    /// What the event adds to `rate` and `repeated` counters (whether those rules fired or
    /// not): the runner records them in `EventWindows` once it acts on the decision.
    public var windowHits: [WindowHit] = []

    /// Creates a decision.
    public init(bot: String, firings: [Firing] = [], ignored: Ignored? = nil, stoppedBy: String? = nil) {
        self.bot = bot
        self.firings = firings
        self.ignored = ignored
        self.stoppedBy = stoppedBy
    }

    /// Whether no rule fired.
    public var isEmpty: Bool { firings.isEmpty }

    /// The decision with only the firing of rule `name` (a webhook step runs the rules
    /// its delivery was admitted to one by one).
    func keeping(_ name: String) -> Decision {
        var kept = self
        kept.firings = firings.filter { $0.rule.name == name }
        if kept.stoppedBy != name { kept.stoppedBy = nil }
        return kept
    }
}
