import IMProtocol

/// One path a template can read, what it holds and where it comes from: a row of the
/// table `check` judges templates by (``TemplateVariables``) and docs/rules.md lists.
///
/// A path is written with dots. Besides names, a part may be:
/// - `*`: any one name (a profile field, a response header), each holding `type`;
/// - `{group}`, `{key}`, `{as}`: the rule's own regex groups, the bot's state keys, and
///   the `as` names of the rule's earlier `http` actions, filled in per rule;
/// - `{payload}`: a webhook rule's body, whose shape its route's format gives
///   (``AlertTemplatePaths``);
/// - `#`: an item of the list above it (`payload.alerts.#.status`), read as `alerts.1`.
///
/// A row of type `.any` accepts anything below it (a JSON body); a `.list` accepts
/// `.length` and positions from 1 (`argv.1`).
struct TemplateVariable: Sendable {
    /// The dotted path.
    let path: String
    /// What it holds.
    let type: TemplateType
    /// Where it comes from: a rule's templates may read it only when the rule provides it.
    let source: Source
    /// What it is, for people (the docs).
    let summary: String

    init(_ path: String, _ type: TemplateType, _ source: Source, _ summary: String) {
        self.path = path
        self.type = type
        self.source = source
        self.summary = summary
    }

    /// A variable every event has.
    init(_ path: String, _ type: TemplateType, _ summary: String) {
        self.init(path, type, .always, summary)
    }

    /// The path split at dots.
    var parts: [String] { path.split(separator: ".").map(String.init) }

    /// The path as docs write it: `sender.attrs.NAME`, `match.GROUP`, `state.KEY`,
    /// `AS.status`.
    var written: String {
        parts.compactMap { part in
            switch part {
            case "*": "NAME"
            case "#": "N"
            case "{group}": "GROUP"
            case "{key}": "KEY"
            case "{as}": "AS"
            case "{payload}": nil
            default: part
            }
        }.joined(separator: ".")
    }

    /// What makes a variable hold a value: the kind of event, or a part of the rule.
    enum Source: Sendable, Hashable, CaseIterable {
        /// Every event.
        case always
        /// Every feed event (a webhook delivery has no sender or conversation).
        case feed
        /// A webhook rule's delivery.
        case webhook
        /// Message events.
        case messageEvents
        /// Member events (`member_joined`, `member_left`, ...).
        case memberEvents
        /// A `command` matcher of the rule.
        case command
        /// A `text` `regex` of the rule.
        case regex
        /// The bot's state (`state:`, `set`, `increment`).
        case state
        /// An earlier `http` action of the rule with `as:`.
        case httpResult
        /// The strike a warning of `escalate` is about (`{warn: …}`).
        case strike

        /// The event kinds that carry it; nil when it does not depend on the event.
        var eventTypes: [EventType]? {
            switch self {
            case .messageEvents: [.message, .messageEdited]
            case .memberEvents: BotEvent.memberEventTypes
            default: nil
            }
        }

        /// `member events (member_joined, ...)`, `a 'command' matcher`: for messages.
        var description: String {
            switch self {
            case .always: "every event"
            case .feed: "every feed event"
            case .webhook: "webhook rules"
            case .messageEvents: "message events (and their edits)"
            case .memberEvents:
                "member events (" + BotEvent.memberEventTypes.map(\.rawValue).joined(separator: ", ") + ")"
            case .command: "a 'command' matcher"
            case .regex: "a text 'regex'"
            case .state: "the bot's state"
            case .httpResult: "an earlier http action with 'as:'"
            case .strike: "a strike's warning (escalate: [{warn: …}])"
            }
        }
    }
}

/// What a template variable holds, in the words docs/rules.md uses.
indirect enum TemplateType: Sendable, Hashable, CustomStringConvertible {
    case text
    case number
    case boolean
    /// RFC 3339 text.
    case time
    /// A list: `{{#x}}...{{/x}}` repeats, `x.length` counts, `x.1` is the first.
    case list(TemplateType)
    /// An object: it renders nothing itself; its fields do.
    case object
    /// Anything (a JSON body, a state value): what is below is not checked.
    case any

    var description: String {
        switch self {
        case .text: "text"
        case .number: "number"
        case .boolean: "true/false"
        case .time: "time (RFC 3339)"
        case .list(let item): "list of \(item)"
        case .object: "object"
        case .any: "any value"
        }
    }
}
