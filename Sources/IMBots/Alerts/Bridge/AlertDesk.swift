import Foundation
import IMProtocol
import Lifecycle

/// Where the alert bridge of one bot decides what its stored deliveries, its timers and
/// its chat commands do to incidents, switches and pending silences, and journals it.
///
/// An actor: steps run one at a time. Each step reads the alert state from the journal
/// and records what it changes in one synchronous stretch (after the awaits of running
/// its rules' actions), so no step works on a state another step has changed meanwhile.
/// A step and its messages are one journal record: after a crash it is either done,
/// messages queued, or it runs again from the stored delivery with the same client ids.
actor AlertDesk {
    private let parts: BotParts
    private let outbox: Outbox
    /// Whether the last step waited for room in the outbox (logged once until it fits).
    private var waitingForRoom = false

    init(parts: BotParts, outbox: Outbox) {
        self.parts = parts
        self.outbox = outbox
    }

    /// What a rule's actions asked for, for one payload.
    private struct Ran {
        var notification: AlertNotification?
        var messages: [OutgoingMessage]
        var incidents: [IncidentRequest]
        var operations: [StateOperation]
    }

    // MARK: Starting, deliveries, timers

    /// Gives every dead-man's switch a full interval from now: the runner was not
    /// listening while it was down.
    func start() {
        let now = parts.time.wallMilliseconds
        var change = AlertChange()
        for (name, state) in parts.journal.read({ $0.alerts.switches }) {
            var rearmed = state
            rearmed.rearm(now: now)
            if rearmed != state { change.switches[name] = rearmed }
        }
        if !change.isEmpty { parts.journal.record(.alerts(change)) }
    }

    /// Processes the stored deliveries, oldest first. False when one's alerts do not fit
    /// the outbox now: it stays stored (the inbox fills, and answers 503 when full).
    func processInbox() async -> Bool {
        while let delivery = parts.journal.read({ $0.alerts.inbox.first }) {
            let change = await process(delivery)
            guard commit(change, waitForRoom: true),
                  parts.journal.read({ $0.alerts.inbox.first?.number != delivery.number }) else { return false }
        }
        return true
    }

    /// Shows the held resolves whose time has come and checks the dead-man's switches.
    /// False when the alerts of it do not fit the outbox now (it is tried again).
    func advance() async -> Bool {
        let now = parts.time.wallMilliseconds
        let definition = parts.rules.now.definition
        var change = AlertChange()
        var ran: [Ran] = []
        let switches = parts.journal.read { $0.alerts.switches }
        for rule in definition.rules {
            if let interval = rule.webhook?.absentFor, switches[rule.name] == nil {
                change.switches[rule.name] = DeadMansSwitch(interval: interval, now: now)
                parts.logger.info("bot \(parts.name): dead-man's switch \(rule.name) armed: it fires unless what it "
                                  + "expects comes within \(SilenceDraft.format(interval))")
            }
        }
        for (name, state) in switches.sorted(by: { $0.key < $1.key }) {
            guard let rule = definition.rule(named: name), let trigger = rule.webhook, let interval = trigger.absentFor else {
                change.droppedSwitches.append(name)
                continue
            }
            var next = state
            next.interval = interval
            let since = next.lastSeen
            if case .fired = next.check(now: now) {
                parts.logger.warning("bot \(parts.name): dead-man's switch \(name) fired: nothing it expects came on "
                                     + "\(trigger.path) for \(SilenceDraft.format(interval))")
                let payload = DeadMansSwitch.alert(rule: name, path: trigger.path, status: .firing, since: since,
                                                   interval: interval, now: now)
                ran.append(await run(rule, payload, path: trigger.path, number: 0, scope: "d\(since)", at: now))
            }
            if next != state { change.switches[name] = next }
        }
        var books = parts.journal.read { $0.alerts.books }
        showHeldResolves(&books, now: now, definition: definition, into: &change)
        apply(ran, to: &books, at: now, scope: "d\(now)", into: &change)
        guard !change.isEmpty else { return true }
        return commit(change, waitForRoom: true)
    }

    /// When ``advance()`` has something to do next (wall milliseconds); nil: nothing held.
    nonisolated var nextDeadline: Int64? {
        let definition = parts.rules.now.definition
        let (books, switches) = parts.journal.read { ($0.alerts.books, $0.alerts.switches) }
        var deadlines = switches.values.compactMap(\.deadline)
        for (key, book) in books {
            guard let action = IncidentAction(book: key, in: definition) else { continue }
            if let deadline = IncidentTracker(policy: action.policy, book: book).nextDeadline { deadlines.append(deadline) }
        }
        if definition.rules.contains(where: { $0.webhook?.absentFor != nil && switches[$0.name] == nil }) {
            deadlines.append(parts.time.wallMilliseconds)
        }
        return deadlines.min()
    }

    private func process(_ delivery: WebhookDelivery) async -> AlertChange {
        var change = AlertChange(delivery: delivery.number)
        let payload: WebhookPayload
        do {
            payload = try delivery.format.decode(Data(delivery.body.utf8))
        } catch {
            parts.logger.error("bot \(parts.name): stored webhook \(delivery.number) on \(delivery.path) cannot be "
                               + "read again (\(error)); it is dropped")
            return change
        }
        let definition = parts.rules.now.definition
        let scope = "w\(delivery.number)"
        var ran: [Ran] = []
        for name in delivery.rules {
            guard let rule = definition.rule(named: name), let trigger = rule.webhook, trigger.path == delivery.path
            else { continue }
            guard let interval = trigger.absentFor else {
                ran.append(await run(rule, payload, path: delivery.path, number: delivery.number, scope: scope,
                                     at: delivery.receivedAt))
                continue
            }
            var state = parts.journal.read { $0.alerts.switches[name] }
                ?? DeadMansSwitch(interval: interval, now: delivery.receivedAt)
            let since = state.lastSeen
            if case .recovered = state.observe(now: delivery.receivedAt) {
                let back = DeadMansSwitch.alert(rule: name, path: trigger.path, status: .resolved, since: since,
                                                interval: interval, now: delivery.receivedAt)
                ran.append(await run(rule, back, path: delivery.path, number: delivery.number, scope: scope,
                                     at: delivery.receivedAt))
            }
            change.switches[name] = state
        }
        var books = parts.journal.read { $0.alerts.books }
        apply(ran, to: &books, at: delivery.receivedAt, scope: scope, into: &change)
        return change
    }

    /// Runs one webhook rule's actions for `payload`.
    private func run(_ rule: Rule, _ payload: WebhookPayload, path: String, number: Int64, scope: String,
                     at time: Int64) async -> Ran {
        let rules = parts.rules.now
        let now = Timestamp(milliseconds: time)
        let event = BotEvent.webhook(path: path, payload: payload, number: number, scope: scope, at: now)
        let context = BotContext(definition: rules.definition, state: parts.journal.variables, now: now)
        let effects = AlertEffects()
        parts.metrics.count(bot: parts.name, rule: rule.name, .matched)
        let decision = Decision(bot: parts.name, firings: [Decision.Firing(rule: rule, bindings: .none)])
        let report = await ActionRunner.run(decision, event: event, context: context, effects: effects)
        parts.reporter.record(report, event: nil, version: rules.definition.version)
        return Ran(notification: payload.notification, messages: effects.messages, incidents: effects.incidents,
                   operations: report.operations)
    }

    /// Folds what the rules asked for into the incidents and the step's messages.
    private func apply(_ ran: [Ran], to books: inout [String: IncidentBook], at now: Int64, scope: String,
                       into change: inout AlertChange) {
        for result in ran {
            change.state += result.operations
            change.messages += result.messages.flatMap { PendingMessage.parts(of: $0, position: 0, sheddable: false) }
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
                change.messages += IncidentMessages(bot: parts.name, book: key, conversation: request.to,
                                                    rule: request.rule).pending(effects, scope: scope)
                books[key] = tracker.book
            }
        }
    }

    /// Makes final the held resolves whose hold has passed: edits and `✅` replies.
    private func showHeldResolves(_ books: inout [String: IncidentBook], now: Int64, definition: BotDefinition,
                                  into change: inout AlertChange) {
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

    // MARK: Commands

    /// The incident whose living message is `messageID`, with its book.
    nonisolated func incident(messageID: MessageID) -> (book: String, incident: Incident)? {
        parts.journal.read { $0.alerts.incident(messageID: messageID) }
    }

    /// `/ack` of the incident whose living message is `messageID`: shows who. Nil when
    /// no incident has that message; false when `user` had acknowledged it already.
    func acknowledge(messageID: MessageID, by user: String) -> Bool? {
        let now = parts.time.wallMilliseconds
        guard let found = incident(messageID: messageID),
              let action = IncidentAction(book: found.book, in: parts.rules.now.definition) else { return nil }
        let old = parts.journal.read { $0.alerts.books[found.book] } ?? IncidentBook()
        var tracker = IncidentTracker(policy: action.policy, renderer: action.renderer, book: old)
        guard let effects = tracker.acknowledge(messageID: messageID, by: user, now: now) else { return nil }
        guard !effects.isEmpty else { return false }
        var change = AlertChange()
        change.incidents = IncidentUpdate.changes(in: found.book, from: old, to: tracker.book,
                                                   touched: [found.incident.groupKey])
        change.messages = action.messages.pending(effects, scope: "a\(now)")
        _ = commit(change, waitForRoom: false)
        return true
    }

    /// Keeps a proposed silence for `/confirm`.
    func propose(_ draft: SilenceDraft, conversation: String) {
        var drafts = parts.journal.read { $0.alerts.drafts }
        drafts.propose(draft, conversation: conversation, now: parts.time.wallMilliseconds)
        var change = AlertChange()
        change.drafts = drafts
        parts.journal.record(.alerts(change))
    }

    /// The silence `user` proposed in `conversation` and now confirms, taken out (before
    /// it is created: a restart never creates it twice); nil when none is pending.
    func takeDraft(by user: String, conversation: String) -> SilenceDraft? {
        var drafts = parts.journal.read { $0.alerts.drafts }
        let before = drafts
        let draft = drafts.confirm(by: user, conversation: conversation, now: parts.time.wallMilliseconds)
        if drafts != before {
            var change = AlertChange()
            change.drafts = drafts
            parts.journal.record(.alerts(change))
        }
        return draft
    }

    // MARK: Committing

    /// Journals a step and queues its messages. With `waitForRoom`, a step whose alerts
    /// do not all fit the outbox now is not taken (false), to be taken again later.
    private func commit(_ change: AlertChange, waitForRoom: Bool) -> Bool {
        if waitForRoom, !outbox.hasRoom(for: change.messages) {
            if !waitingForRoom {
                parts.logger.warning("bot \(parts.name): the outbox is full of alerts; new alerts wait in the inbox "
                                     + "(which answers 503 once full) until there is room")
            }
            waitingForRoom = true
            return false
        }
        waitingForRoom = false
        parts.journal.record(.alerts(change))
        for refused in outbox.offer(change.messages) {
            parts.journal.record(.done(clientMessageID: refused.clientMessageID))
            parts.reporter.refused(refused, version: parts.rules.now.definition.version)
        }
        return true
    }
}

/// The `incident` action a book belongs to, as the rules are now; nil for a book whose
/// rule is gone or changed.
struct IncidentAction {
    let policy: IncidentPolicy
    let renderer: IncidentRenderer
    let messages: IncidentMessages

    init?(book: String, in definition: BotDefinition) {
        guard let key = IncidentBookKey(book), let rule = definition.rule(named: key.rule),
              rule.actions.indices.contains(key.action), case .incident(let spec) = rule.actions[key.action].spec,
              let conversation = ConversationAddress(key.conversation) else { return nil }
        policy = IncidentPolicy(flapHold: spec.flapHold)
        renderer = IncidentRenderer(templates: .init(title: spec.title?.template, line: spec.line?.template))
        messages = IncidentMessages(bot: definition.name, book: book, conversation: conversation, rule: key.rule)
    }
}
