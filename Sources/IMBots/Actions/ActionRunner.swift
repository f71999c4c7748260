import IMProtocol
import Templates

/// Performs a decision's actions through `BotEffects`, rule by rule, action by action.
///
/// Enforced rules' actions are performed; dry and shadow rules' actions are rendered
/// and reported as `dryRun` without touching the effects or the state. A failed action
/// ends its own rule (the rest is reported `skipped`) but not the other rules. A `stop`
/// is no action here: the engine has already ended evaluation there (`stoppedBy`), and it
/// holds whatever happens to the rule's actions. Retrying is the effects' business, not
/// this one's.
public enum ActionRunner {
    /// Runs every action of every fired rule, in order.
    public static func run(_ decision: Decision, event: BotEvent, context: BotContext,
                           effects: some BotEffects) async -> ActionReport {
        await run(decision, event: event, context: context, effects: effects, performingAll: false)
    }

    /// What one run produced: the report, and the messages as they go into the outbox.
    struct Acted {
        var report: ActionReport
        var messages: [PendingMessage]
    }

    /// Runs the decision's actions and makes the messages they decided outbox entries: a
    /// text longer than a message may be is split into parts here, for every way in; a
    /// webhook's messages are alerts (never shed). `position`: the feed position they
    /// answer (0: none).
    static func act(_ decision: Decision, event: BotEvent, context: BotContext, effects: some QueuingEffects,
                    position: Int64) async -> Acted {
        let report = await run(decision, event: event, context: context, effects: effects)
        let sheddable = event.webhookPath == nil
        return Acted(report: report, messages: effects.messages.flatMap {
            PendingMessage.parts(of: $0, position: position, sheddable: sheddable)
        })
    }

    /// Runs the actions; with `performingAll`, dry and shadow rules' actions are performed
    /// too (examples run against recording effects, so that what such rules would do,
    /// http responses included, can be checked).
    static func run(_ decision: Decision, event: BotEvent, context: BotContext, effects: some BotEffects,
                    performingAll: Bool) async -> ActionReport {
        let stopper = decision.firings.first { $0.rule.name == decision.stoppedBy }
        var report = ActionReport(state: context.state, stop: stopper.map { ($0.rule.name, $0.mode) })
        for firing in decision.firings {
            var run = RuleRun(decision: decision, firing: firing, event: event, context: context,
                              state: report.state, performs: performingAll || firing.mode == .enforce)
            var failed: Int?
            for (index, action) in firing.rule.actions.enumerated() where action.kind != .stop {
                let status: ActionOutcome.Status
                if let failed {
                    status = .skipped(after: failed)
                } else {
                    do {
                        let effect = try await run.execute(action, index: index, effects: effects)
                        status = run.performs ? .performed(effect) : .dryRun(effect)
                    } catch {
                        failed = index
                        status = .failed(error)
                    }
                }
                report.outcomes.append(ActionOutcome(rule: firing.rule.name, actionIndex: index, kind: action.kind,
                                                     mode: firing.mode, status: status))
            }
            if run.stateChanged {
                report.state = run.state
                report.stateChanged = true
                report.operations += run.operations
            }
        }
        return report
    }
}

/// The actions of one fired rule, with what they have produced so far.
struct RuleRun {
    let decision: Decision
    let firing: Decision.Firing
    let event: BotEvent
    let context: BotContext
    /// The state as this rule's templates see it; performed changes apply at once.
    private(set) var state: [String: TemplateValue]
    private(set) var stateChanged = false
    /// The performed state changes, as operations to apply to the state of the moment.
    private(set) var operations: [StateOperation] = []
    /// Built-in variables plus `http` results, without `state`.
    private var variables: [String: TemplateValue]

    /// Whether actions take effect; false for dry and shadow rules.
    let performs: Bool

    init(decision: Decision, firing: Decision.Firing, event: BotEvent, context: BotContext,
         state: [String: TemplateValue], performs: Bool) {
        self.performs = performs
        self.decision = decision
        self.firing = firing
        self.event = event
        self.context = context
        self.state = state
        self.variables = TemplateContext.base(event: event, context: context, bindings: firing.bindings)
    }

    private var rule: String { firing.rule.name }

    /// The root every template of the current action renders against.
    private var root: TemplateValue {
        var all = variables
        all["state"] = .object(state)
        return .object(all)
    }

    /// Performs (or, in dry and shadow rules, describes) one action; never a `stop`, which
    /// the runner leaves out.
    mutating func execute(_ action: Action, index: Int,
                          effects: some BotEffects) async throws(ActionError) -> ActionEffect {
        let root = self.root
        let ruleName = rule
        func fail(_ code: ActionError.Code, _ message: String) -> ActionError {
            ActionError(code: code, message: message, rule: ruleName, actionIndex: index)
        }
        let key = IdempotencyKey.make(bot: decision.bot, scope: event.idempotencyScope, rule: rule, actionIndex: index)
        switch action.spec {
        case .reply(let spec):
            guard let conversation = event.conversation else {
                throw fail(.noConversation, "the event has no conversation to reply in")
            }
            let message = OutgoingMessage(to: conversation.address, text: try text(spec.text, root, fail),
                                          clientMessageID: key, replyTo: spec.quote ? event.event.message?.id : nil,
                                          rule: rule, action: .reply)
            return try await send(message, effects, fail)
        case .notice(let spec):
            guard let conversation = event.conversation,
                  let sender = event.event.message?.senderID ?? event.sender?.id else {
                throw fail(.noConversation, "the event has no conversation and sender to give a notice to")
            }
            var message = OutgoingMessage(to: conversation.address, text: try text(spec.text, root, fail),
                                          clientMessageID: key, replyTo: spec.quote ? event.event.message?.id : nil,
                                          rule: rule, action: .notice)
            message.notice = NoticeRecipient(conversation: conversation.id, user: sender)
            return try await send(message, effects, fail)
        case .send(let spec):
            let to = try address(spec.to, root, fail)
            let message = OutgoingMessage(to: to, text: try text(spec.text, root, fail), clientMessageID: key,
                                          rule: rule, action: .send)
            return try await send(message, effects, fail)
        case .forward(let spec):
            let to = try address(spec.to, root, fail)
            let message = OutgoingMessage(to: to, text: try text(spec.text ?? Self.forwardText, root, fail),
                                          clientMessageID: key, rule: rule, action: .forward)
            return try await send(message, effects, fail)
        case .updateProfile(let spec):
            let update = ProfileUpdate(
                nickname: spec.nickname?.render(root), avatarURL: spec.avatarURL?.render(root),
                signature: spec.signature?.render(root),
                attrs: spec.attrs.isEmpty ? nil
                    : Dictionary(spec.attrs.map { ($0.key, $0.value.render(root)) }, uniquingKeysWith: { _, last in last }))
            do {
                try update.validate()
            } catch {
                throw fail(.invalidProfile, "the rendered profile is invalid: \((error as? APIError)?.message ?? "\(error)")")
            }
            try await perform("updating the profile", fail) { try await effects.updateProfile(update) }
            return .profile(update)
        case .http(let spec):
            return try await http(spec, key: key, root: root, effects: effects, fail)
        case .set(let assignments):
            let changes = assignments.map { StateChange(key: $0.key.description, value: $0.value.render(root).templateValue) }
            for (assignment, change) in zip(assignments, changes) {
                apply(assignment.key, change.value, as: .set(path: assignment.key.path, value: change.value))
            }
            return .state(changes)
        case .increment(let spec):
            let current = StatePath.value(at: spec.key.path, in: state)
            let next: TemplateValue
            switch current {
            case nil, .null?: next = .int(spec.by)
            case .int(let value)?: next = .int(value &+ spec.by)
            case .double(let value)?: next = .double(value + Double(spec.by))
            case .string(let text)? where Int(text) != nil: next = .int((Int(text) ?? 0) &+ spec.by)
            default:
                throw fail(.invalidState, "state '\(spec.key)' holds \(StatePath.describe(current)), not a number")
            }
            apply(spec.key, next, as: .add(path: spec.key.path, amount: spec.by))
            return .state([StateChange(key: spec.key.description, value: next)])
        case .stop:
            // Not reached (`run` leaves stops out); as an effect it changes nothing.
            return .state([])
        case .moderation(let spec):
            return try await moderation(spec, key: key, index: index, root: root, effects: effects, fail)
        case .incident(let spec):
            let request = IncidentRequest(
                to: try address(spec.to, root, fail), rule: rule, actionIndex: index, flapHold: spec.flapHold,
                templates: IncidentRenderer.Templates(title: spec.title?.template, line: spec.line?.template))
            try await perform("the incident in \(request.to)", fail) { try await effects.incident(request) }
            return .incident(request)
        }
    }

    /// The default text of `forward`.
    static let forwardText: TemplateText = {
        do {
            return try TemplateText(source: "{{sender.nickname}} in {{conversation.address}}: {{message.text}}")
        } catch {
            preconditionFailure("the built-in forward template does not parse: \(error)")
        }
    }()

    // MARK: Pieces

    /// Makes an `http` response available to the rule's later actions.
    mutating func remember(_ name: String, _ value: TemplateValue) {
        variables[name] = value
    }

    private mutating func apply(_ key: StateKey, _ value: TemplateValue, as operation: StateOperation) {
        guard performs else { return }
        StatePath.set(value, at: key.path, in: &state)
        operations.append(operation)
        stateChanged = true
    }

    /// Runs an effect when the rule performs; its failure is the action's.
    private func perform(_ what: String, _ fail: (ActionError.Code, String) -> ActionError,
                         _ effect: () async throws -> Void) async throws(ActionError) {
        guard performs else { return }
        do {
            try await effect()
        } catch {
            throw fail(.effectFailed, "\(what) failed: \(error)")
        }
    }

    private func text(_ template: TemplateText, _ root: TemplateValue,
                      _ fail: (ActionError.Code, String) -> ActionError) throws(ActionError) -> String {
        let text = template.render(root)
        if text.allSatisfy(\.isWhitespace) {
            throw fail(.invalidText, "the message text rendered empty (template: \(template.source))")
        }
        // A text longer than a message may be is split into parts when it is queued.
        return text
    }

    private func address(_ template: AddressTemplate?, _ root: TemplateValue,
                         _ fail: (ActionError.Code, String) -> ActionError) throws(ActionError) -> ConversationAddress {
        guard let template else {
            guard let conversation = event.conversation else {
                throw fail(.noConversation, "the event has no conversation to send to; give 'to'")
            }
            return conversation.address
        }
        let rendered = template.text.render(root).trimmedWhitespace
        guard let address = ConversationAddress(written: rendered) else {
            throw fail(.invalidAddress, "'\(rendered)' is not an address (from '\(template.text.source)')")
        }
        return address
    }

    private func send(_ message: OutgoingMessage, _ effects: some BotEffects,
                      _ fail: (ActionError.Code, String) -> ActionError) async throws(ActionError) -> ActionEffect {
        guard performs else { return .message(message, sent: nil) }
        do {
            return .message(message, sent: try await effects.send(message))
        } catch {
            throw fail(.effectFailed, "sending to \(message.to) failed: \(error)")
        }
    }
}
