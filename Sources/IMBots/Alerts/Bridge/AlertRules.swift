import Foundation
import IMProtocol
import Templates

/// What a bot's webhook rules do with a payload, and with time passing, decided without
/// I/O: the one core of the alert bridge. The desk (``AlertDesk``) runs it against the
/// bot's journal and outbox; `switchboard test` and `explain` run it against an alert
/// state of their own (``WebhookExampleRunner``), so an example sees exactly what the
/// runner would do.
///
/// Each method takes the alert state as it is and returns the change (``AlertChange``)
/// to journal, with the messages to send; nothing here reads a clock.
struct AlertRules: Sendable {
    let definition: BotDefinition
    let engine: RuleEngine

    /// What one rule's actions asked for, for one payload.
    struct Ran: Sendable {
        var rule: String
        var notification: AlertNotification?
        /// The messages of its `send` actions, as they go into the outbox (alerts: never shed).
        var messages: [PendingMessage]
        var incidents: [IncidentRequest]
        var operations: [StateOperation]
        /// What the actions did, for the audit log and the rules' counters.
        var report: ActionReport
    }

    /// A rule that fires for a payload, with its dedupe key.
    struct Candidate: Sendable {
        var rule: String
        var mark: DedupeMark?
    }

    /// Something about a dead-man's switch worth a log line.
    enum SwitchNote: Sendable {
        case armed(rule: String, interval: Duration)
        case fired(rule: String, path: String, interval: Duration)
    }

    // MARK: Payloads

    /// The webhook rules that fire for `payload` on `path`, each with its dedupe key.
    func candidates(for payload: WebhookPayload, path: String, now: Int64) -> [Candidate] {
        let time = Timestamp(milliseconds: now)
        let event = BotEvent.webhook(path: path, payload: payload, number: 0, scope: "", at: time)
        let decision = engine.decide(event, context: BotContext(definition: definition, now: time))
        return decision.firings.map { firing in
            let name = firing.rule.name
            let mark = definition.dedupe[name].map { key in
                DedupeMark(rule: name, key: key.key(for: payload), lifetime: key.lifetime.milliseconds)
            }
            return Candidate(rule: name, mark: mark)
        }
    }

    /// The candidates whose dedupe has not seen the payload (within its time) at `now`.
    static func fresh(_ candidates: [Candidate], in alerts: AlertState, now: Int64) -> [Candidate] {
        candidates.filter { candidate in
            guard let mark = candidate.mark else { return true }
            return !(alerts.seen[candidate.rule]?.contains(mark.key, now: now) ?? false)
        }
    }

    /// One stored delivery's step: the rules it was admitted to run (a dead-man's switch
    /// notes that its notification came, and recovers), and what they asked for is folded
    /// into the incidents. `number` scopes the messages' client ids.
    func process(_ payload: WebhookPayload, rules names: [String], path: String, number: Int64, receivedAt: Int64,
                 alerts: AlertState, variables: [String: TemplateValue]) async -> (AlertChange, [Ran]) {
        var change = AlertChange(delivery: number)
        let scope = "w\(number)"
        var ran: [Ran] = []
        for name in names {
            guard let rule = definition.rule(named: name), let trigger = rule.webhook, trigger.path == path else { continue }
            guard let interval = trigger.quiet else {
                ran.append(await run(rule, payload, path: path, number: number, scope: scope, at: receivedAt,
                                     variables: variables))
                continue
            }
            var state = alerts.switches[name] ?? DeadMansSwitch(interval: interval, now: receivedAt)
            let since = state.lastSeen
            if case .recovered = state.observe(now: receivedAt) {
                let back = DeadMansSwitch.alert(rule: name, path: trigger.path, status: .resolved, since: since,
                                                interval: interval, now: receivedAt)
                ran.append(await run(rule, back, path: path, number: number, scope: scope, at: receivedAt,
                                     variables: variables, trigger: true))
            }
            change.switches[name] = state
        }
        var books = alerts.books
        apply(ran, to: &books, at: receivedAt, scope: scope, into: &change)
        return (change, ran)
    }

    // MARK: Time

    /// What the passing of time does at `now`: dead-man's switches armed (for rules new
    /// since the last step) and fired, held resolves shown.
    func advance(now: Int64, alerts: AlertState,
                 variables: [String: TemplateValue]) async -> (AlertChange, [Ran], [SwitchNote]) {
        var change = AlertChange()
        var ran: [Ran] = []
        var notes: [SwitchNote] = []
        let switches = alerts.switches
        for rule in definition.rules {
            if let interval = rule.webhook?.quiet, switches[rule.name] == nil {
                change.switches[rule.name] = DeadMansSwitch(interval: interval, now: now)
                notes.append(.armed(rule: rule.name, interval: interval))
            }
        }
        for (name, state) in switches.sorted(by: { $0.key < $1.key }) {
            guard let rule = definition.rule(named: name), let trigger = rule.webhook, let interval = trigger.quiet else {
                change.droppedSwitches.append(name)
                continue
            }
            var next = state
            next.interval = interval
            let since = next.lastSeen
            if case .fired = next.check(now: now) {
                notes.append(.fired(rule: name, path: trigger.path, interval: interval))
                let payload = DeadMansSwitch.alert(rule: name, path: trigger.path, status: .firing, since: since,
                                                   interval: interval, now: now)
                ran.append(await run(rule, payload, path: trigger.path, number: 0, scope: "d\(since)", at: now,
                                     variables: variables, trigger: true))
            }
            if next != state { change.switches[name] = next }
        }
        var books = alerts.books
        showHeldResolves(&books, now: now, into: &change)
        apply(ran, to: &books, at: now, scope: "d\(now)", into: &change)
        return (change, ran, notes)
    }

    /// When ``advance(now:alerts:variables:)`` has something to do next (wall
    /// milliseconds); nil: nothing held. `now` stands for rules whose switch is not armed yet.
    func nextDeadline(_ alerts: AlertState, now: Int64) -> Int64? {
        var deadlines = alerts.switches.values.compactMap(\.deadline)
        for (key, book) in alerts.books {
            guard let action = IncidentAction(book: key, in: definition) else { continue }
            if let deadline = IncidentTracker(policy: action.policy, book: book).nextDeadline { deadlines.append(deadline) }
        }
        if definition.rules.contains(where: { $0.webhook?.quiet != nil && alerts.switches[$0.name] == nil }) {
            deadlines.append(now)
        }
        return deadlines.min()
    }

    // MARK: Running rules, folding incidents

    /// Runs one webhook rule's actions for `payload`, as the engine decides them: for a
    /// delivery the rule's `match` must hold; for its dead-man's switch (`trigger`: the
    /// switch's alert) the rule fires on its own, since what it matches is what stayed away.
    func run(_ rule: Rule, _ payload: WebhookPayload, path: String, number: Int64, scope: String, at time: Int64,
             variables: [String: TemplateValue], trigger: Bool = false) async -> Ran {
        let now = Timestamp(milliseconds: time)
        var event = BotEvent.webhook(path: path, payload: payload, number: number, scope: scope, at: now)
        if trigger { event.trigger = rule.name }
        let context = BotContext(definition: definition, state: variables, now: now)
        let effects = AlertEffects()
        let decision = engine.decide(event, context: context).keeping(rule.name)
        let acted = await ActionRunner.act(decision, event: event, context: context, effects: effects, position: 0)
        return Ran(rule: rule.name, notification: payload.notification, messages: acted.messages,
                   incidents: effects.incidents, operations: acted.report.operations, report: acted.report)
    }

    /// Folds what the rules asked for into the incidents and the step's messages.
    func apply(_ ran: [Ran], to books: inout [String: IncidentBook], at now: Int64, scope: String,
               into change: inout AlertChange) {
        for result in ran {
            change.state += result.operations
            change.messages += result.messages
            guard let notification = result.notification else { continue }
            for request in result.incidents {
                let key = IncidentBookKey(rule: request.rule, action: request.actionIndex,
                                          conversation: request.to.description).description
                let old = books[key] ?? IncidentBook()
                var tracker = IncidentTracker(policy: IncidentPolicy(flapHold: request.flapHold),
                                              renderer: IncidentRenderer(templates: request.templates), book: old)
                let effects = tracker.receive(notification, now: now)
                change.incidents += IncidentUpdate.changes(in: key, from: old, to: tracker.book,
                                                          touched: effects.groups.union([notification.groupKey]))
                change.messages += IncidentMessages(bot: definition.name, book: key, conversation: request.to,
                                                    rule: request.rule).pending(effects, scope: scope)
                books[key] = tracker.book
            }
        }
    }

    /// Makes final the held resolves whose hold has passed: edits and `✅` replies.
    func showHeldResolves(_ books: inout [String: IncidentBook], now: Int64, into change: inout AlertChange) {
        for key in books.keys.sorted() {
            guard let book = books[key], let action = IncidentAction(book: key, in: definition) else { continue }
            var tracker = IncidentTracker(policy: action.policy, renderer: action.renderer, book: book)
            guard let deadline = tracker.nextDeadline, deadline <= now else { continue }
            let effects = tracker.advance(now: now)
            change.incidents += IncidentUpdate.changes(in: key, from: book, to: tracker.book, touched: effects.groups)
            change.messages += action.messages.pending(effects, scope: "t\(now)")
            books[key] = tracker.book
        }
    }
}
