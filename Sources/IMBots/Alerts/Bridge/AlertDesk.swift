import Foundation
import IMProtocol
import Lifecycle

/// Where the alert bridge of one bot decides what its stored deliveries, its timers and
/// its chat commands do to incidents, switches and pending silences, and journals it.
///
/// An actor: steps run one at a time. Each step reads the alert state from the journal
/// and records what it changes in one synchronous stretch (after the awaits of running
/// its rules' actions), so no step works on a state another step has changed meanwhile.
/// A step and its messages are one journal record, kept by the bot's ``RunLedger`` as
/// every run is: after a crash it is either done, messages queued, or it runs again from
/// the stored delivery with the same client ids.
actor AlertDesk {
    private let ledger: RunLedger
    /// Called after each step is kept, so the loop that waits for the next deadline (a
    /// silence's end, a held resolve) looks again.
    private let changed: @Sendable () -> Void
    /// Whether the last step waited for room in the outbox (logged once until it fits).
    private var waitingForRoom = false
    /// When each route's open incidents were last reconciled with its peers (wall ms).
    var reconciledAt: [String: Int64] = [:]
    /// Incidents whose silence ended, not to be asked about again before then (wall ms):
    /// a peer that does not answer is not asked in a loop.
    var silenceChecks: [String: Int64] = [:]
    /// When the desk started: the first periodic reconciliation is a period later.
    let startedAt: Int64

    init(parts: BotParts, outbox: Outbox, changed: @escaping @Sendable () -> Void = {}) {
        ledger = RunLedger(parts: parts, outbox: outbox)
        self.changed = changed
        startedAt = parts.time.wallMilliseconds
    }

    nonisolated var parts: BotParts { ledger.parts }

    /// The bridge's rules as the bot's file says now.
    private nonisolated var rules: AlertRules {
        let current = parts.rules.now
        return AlertRules(definition: current.definition, engine: current.engine)
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
        if !change.isEmpty { commit(change, waitForRoom: false) }
    }

    /// Processes the stored deliveries, oldest first. False when one's alerts do not fit
    /// the outbox now: it stays stored (the inbox fills, and answers 503 when full).
    func processInbox() async -> Bool {
        while let delivery = parts.journal.read({ $0.alerts.inbox.first }) {
            let (change, ran) = await process(delivery)
            guard commit(change, ran: ran, waitForRoom: true),
                  parts.journal.read({ $0.alerts.inbox.first?.number != delivery.number }) else { return false }
        }
        return true
    }

    /// Shows the held resolves whose time has come and checks the dead-man's switches.
    /// False when the alerts of it do not fit the outbox now (it is tried again).
    func advance() async -> Bool {
        let (alerts, variables) = parts.journal.read { ($0.alerts, $0.variables) }
        let (change, ran, notes) = await rules.advance(now: parts.time.wallMilliseconds, alerts: alerts,
                                                       variables: variables)
        guard commit(change.isEmpty ? nil : change, ran: ran, waitForRoom: true) else { return false }
        for note in notes {
            switch note {
            case .armed(let rule, let interval):
                parts.logger.info("bot \(parts.name): dead-man's switch \(rule) armed: it fires unless what it "
                                  + "expects comes within \(SilenceDraft.format(interval))")
            case .fired(let rule, let path, let interval):
                parts.logger.warning("bot \(parts.name): dead-man's switch \(rule) fired: nothing it expects came on "
                                     + "\(path) for \(SilenceDraft.format(interval))")
            }
        }
        return true
    }

    /// When ``advance()`` has something to do next (wall milliseconds); nil: nothing held.
    nonisolated var nextDeadline: Int64? {
        rules.nextDeadline(parts.journal.read { $0.alerts }, now: parts.time.wallMilliseconds)
    }

    private func process(_ delivery: WebhookDelivery) async -> (AlertChange, [AlertRules.Ran]) {
        let payload: WebhookPayload
        do {
            payload = try delivery.format.decode(Data(delivery.body.utf8))
        } catch {
            parts.logger.error("bot \(parts.name): stored webhook \(delivery.number) on \(delivery.path) cannot be "
                               + "read again (\(error)); it is dropped")
            return (AlertChange(delivery: delivery.number), [])
        }
        let (alerts, variables) = parts.journal.read { ($0.alerts, $0.variables) }
        return await rules.process(payload, rules: delivery.rules, path: delivery.path, number: delivery.number,
                                   receivedAt: delivery.receivedAt, alerts: alerts, variables: variables)
    }

    // MARK: Commands

    /// The incident whose living message is `messageID`, with its book.
    nonisolated func incident(messageID: MessageID) -> (book: String, incident: Incident)? {
        parts.journal.read { $0.alerts.incident(messageID: messageID) }
    }

    /// `/ack` of the incident whose living message is `messageID`: shows who. Nil when
    /// no incident has that message; false when `user` had acknowledged it already.
    func acknowledge(messageID: MessageID, by user: String) -> Bool? {
        step(onMessage: messageID, scope: "a") { tracker, now in
            tracker.acknowledge(messageID: messageID, by: user, now: now)
        }
    }

    /// A command's step on the incident whose living message is `messageID`, journaled
    /// with its messages: nil when no incident has that message, false when the step
    /// changed nothing. `scope` names the step in its messages' client ids.
    func step(onMessage messageID: MessageID, scope: String,
              _ body: (inout IncidentTracker, Int64) -> [IncidentEffect]?) -> Bool? {
        let now = parts.time.wallMilliseconds
        guard let found = incident(messageID: messageID),
              let action = IncidentAction(book: found.book, in: parts.rules.now.definition) else { return nil }
        let old = parts.journal.read { $0.alerts.books[found.book] } ?? IncidentBook()
        var tracker = IncidentTracker(policy: action.policy, renderer: action.renderer, book: old)
        guard let effects = body(&tracker, now) else { return nil }
        guard !effects.isEmpty else { return false }
        var change = AlertChange()
        change.incidents = IncidentUpdate.changes(in: found.book, from: old, to: tracker.book,
                                                   touched: [found.incident.groupKey])
        change.messages = action.messages.pending(effects, scope: "\(scope)\(now)")
        commit(change, waitForRoom: false)
        return true
    }

    /// Keeps a proposed silence for `/confirm`.
    func propose(_ draft: SilenceDraft, conversation: String) {
        var drafts = parts.journal.read { $0.alerts.drafts }
        drafts.propose(draft, conversation: conversation, now: parts.time.wallMilliseconds)
        var change = AlertChange()
        change.drafts = drafts
        commit(change, waitForRoom: false)
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
            commit(change, waitForRoom: false)
        }
        return draft
    }

    // MARK: Committing

    /// Keeps a step (``RunLedger``): what its rules did (`ran`) audited and counted, the
    /// change journaled with its messages in one record (nil: nothing to journal), the
    /// messages offered. With `waitForRoom`, a step whose alerts do not all fit the outbox
    /// now is not taken (false): nothing of it is kept, and it runs again later.
    @discardableResult
    func commit(_ change: AlertChange?, ran: [AlertRules.Ran] = [], waitForRoom: Bool) -> Bool {
        if waitForRoom, let change, !ledger.outbox.hasRoom(for: change.messages) {
            if !waitingForRoom {
                parts.logger.warning("bot \(parts.name): the outbox is full of alerts; new alerts wait in the inbox "
                                     + "(which answers 503 once full) until there is room")
            }
            waitingForRoom = true
            return false
        }
        if change != nil { waitingForRoom = false }
        ledger.keep(change.map { .alerts($0) },
                    fired: ran.map { RunLedger.Fired(rules: [$0.rule], report: $0.report) },
                    version: parts.rules.now.definition.version)
        if change != nil { changed() }
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
