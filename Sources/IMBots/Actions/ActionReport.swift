import IMProtocol
import Templates

/// What running a decision's actions did: an outcome per action, and the state after.
public struct ActionReport: Sendable {
    /// One outcome per action of every fired rule, in order. A `stop` is not among them:
    /// it is not something the bot does, but where the decision ended (``stop``).
    public var outcomes: [ActionOutcome]
    /// The rule whose `stop` ended evaluation, and its mode, if one did: it holds even
    /// when an action of that rule failed, as the rules after it were never chosen.
    public var stop: (rule: String, mode: RuleMode)?
    /// The bot's state after the performed `set` and `increment` actions; the runner
    /// persists it when `stateChanged`.
    public var state: [String: TemplateValue]
    /// Whether any performed action changed the state.
    public var stateChanged: Bool
    /// The performed changes in order, to apply to the state as it is when the event
    /// finishes (the runner handles events of different conversations side by side).
    var operations: [StateOperation] = []

    /// Creates a report.
    public init(outcomes: [ActionOutcome] = [], state: [String: TemplateValue], stateChanged: Bool = false,
                stop: (rule: String, mode: RuleMode)? = nil) {
        self.outcomes = outcomes
        self.stop = stop
        self.state = state
        self.stateChanged = stateChanged
    }

    /// The outcomes that failed.
    public var failures: [ActionError] {
        outcomes.compactMap { outcome in
            if case .failed(let error) = outcome.status { return error }
            return nil
        }
    }
}

/// What happened to one action.
public struct ActionOutcome: Sendable, CustomStringConvertible {
    /// Performed, only described (dry and shadow rules), failed, or skipped.
    public enum Status: Sendable {
        /// Done; the effect says what was done.
        case performed(ActionEffect)
        /// Not done, because the rule is in dry or shadow mode; the effect says what
        /// would have been done.
        case dryRun(ActionEffect)
        /// It failed; the rule's later actions are skipped.
        case failed(ActionError)
        /// Not attempted, because the action at `after` (its index) of the same rule failed.
        case skipped(after: Int)
    }

    /// The rule the action belongs to.
    public let rule: String
    /// The action's position in the rule's `do` list, from 0.
    public let actionIndex: Int
    /// The kind of action.
    public let kind: ActionKind
    /// The rule's mode.
    public let mode: RuleMode
    /// What happened.
    public let status: Status

    /// Creates an outcome.
    public init(rule: String, actionIndex: Int, kind: ActionKind, mode: RuleMode, status: Status) {
        self.rule = rule
        self.actionIndex = actionIndex
        self.kind = kind
        self.mode = mode
        self.status = status
    }

    /// The effect, whether performed or only described.
    public var effect: ActionEffect? {
        switch status {
        case .performed(let effect), .dryRun(let effect): effect
        case .failed, .skipped: nil
        }
    }

    /// `greet action 1 (reply)`: actions are counted from 1, as people count them.
    public var label: String { Self.label(rule: rule, index: actionIndex, kind: kind) }

    /// `greet action 1 (reply)`.
    public static func label(rule: String, index: Int, kind: ActionKind) -> String {
        "\(rule) action \(index + 1) (\(kind))"
    }

    /// `greet action 1 (reply): performed: to user:alice "Hi"`, one line for logs.
    public var description: String {
        switch status {
        case .performed(let effect): return "\(label): performed: \(effect)"
        case .dryRun(let effect): return "\(label): \(mode) run, not performed: \(effect)"
        case .failed(let error): return "\(label): failed: \(error.message)"
        case .skipped(let failed): return "\(label): not run, because action \(failed + 1) of the rule failed"
        }
    }
}

/// What an action does (or would do), with templates rendered.
public enum ActionEffect: Sendable, CustomStringConvertible {
    /// A message; `sent` is the stored message when the effects returned it.
    case message(OutgoingMessage, sent: Message?)
    /// A change of the bot's profile.
    case profile(ProfileUpdate)
    /// An HTTP call.
    case http(HTTPCall)
    /// State keys set to new values (`set`, `increment`).
    case state([StateChange])
    /// A moderation action's acts, cases, strike and messages.
    case moderation(ModerationEffect)
    /// An alert group's living message.
    case incident(IncidentRequest)

    /// One line: `to user:alice "Hi"`, `POST https://... -> 201`...
    public var description: String {
        switch self {
        case .message(let message, _):
            return "to \(message.to) \"\(message.text)\"" + (message.replyTo.map { " (reply to \($0))" } ?? "")
        case .profile(let update):
            let fields = [update.nickname.map { "nickname \"\($0)\"" }, update.signature.map { "signature \"\($0)\"" },
                          update.avatarURL.map { "avatar_url \"\($0)\"" },
                          update.attrs.map { "attrs \($0.keys.sorted().joined(separator: ","))" }]
            return "profile " + fields.compactMap { $0 }.joined(separator: ", ")
        case .http(let call):
            return "\(call.method) \(call.url)" + (call.status.map { " -> \($0)" } ?? "")
        case .state(let changes):
            return changes.map { "\($0.key) = \($0.value.interpolatedText)" }.joined(separator: ", ")
        case .moderation(let effect):
            return effect.description
        case .incident(let request):
            return "incident in \(request.to)"
        }
    }
}

/// An HTTP call made (or described) by an `http` action.
public struct HTTPCall: Sendable, Hashable {
    /// The method.
    public var method: String
    /// The rendered URL.
    public var url: String
    /// The `as` name the response is available under.
    public var name: String?
    /// The `Idempotency-Key` sent.
    public var idempotencyKey: String
    /// The response status; nil when not performed.
    public var status: Int?
}

/// One state key set by an action.
public struct StateChange: Sendable, Hashable {
    /// The key as written (`spam.count`).
    public var key: String
    /// The new value.
    public var value: TemplateValue
}

/// Why an action failed.
public struct ActionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// A rendered address is not one (`to:` rendered to `group:`).
        case invalidAddress = "invalid_address"
        /// A message rendered empty.
        case invalidText = "invalid_text"
        /// The event has no conversation to reply in.
        case noConversation = "no_conversation"
        /// A rendered URL is not http(s).
        case invalidURL = "invalid_url"
        /// The HTTP response status is not what `expect` allows.
        case unexpectedStatus = "unexpected_status"
        /// A rendered profile field breaks the profile rules.
        case invalidProfile = "invalid_profile"
        /// `increment` on a value that is not a number.
        case invalidState = "invalid_state"
        /// The effects (server, network) failed.
        case effectFailed = "effect_failed"
        /// A moderation action that does not apply to the event (`approve` of a message,
        /// `mute` in a direct conversation, `/undo` of an unknown case).
        case notApplicable = "not_applicable"
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The rule whose action failed.
    public let rule: String
    /// The action's position in the rule's `do` list, from 0.
    public let actionIndex: Int

    /// Creates an error.
    public init(code: Code, message: String, rule: String, actionIndex: Int) {
        self.code = code
        self.message = message
        self.rule = rule
        self.actionIndex = actionIndex
    }

    /// `rule 'ticket', action 1: message` (actions counted from 1).
    public var description: String { "rule '\(rule)', action \(actionIndex + 1): \(message)" }
}
