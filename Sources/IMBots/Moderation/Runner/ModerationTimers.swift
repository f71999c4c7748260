import Foundation
import IMClient
import IMProtocol
import Synchronization

/// Moderation's timed work, one of a bot's ``TimerService``: runs `schedule` rules when
/// they are due (and the runs missed while the runner was down, as `missed:` says),
/// `quiet` rules once their quiet period has passed, and removes newcomers who did not
/// answer their verification in time; looks up moderators whose account did not exist
/// yet. Trigger rules go the one way every event goes (``BotRun``). What it did is in the
/// journal (``ModerationBook``), so a restart neither repeats nor forgets it. Nothing
/// runs before the login; what fell due meanwhile runs right after.
final class ModerationTimers: TimedWork {
    private let run: BotRun
    private struct Clock {
        /// When the first tick after the login ran (wall ms): runs missed before it follow `missed:`.
        var started: Int64?
        var moderatorLookup: Int64 = 0
    }
    private let clock = Mutex(Clock())

    init(run: BotRun) {
        self.run = run
    }

    private var parts: BotParts { run.parts }
    private var session: BotSession { run.session }
    private var book: ModerationBook { parts.moderation.book }

    static func needed(by definition: BotDefinition) -> Bool {
        !definition.moderation.moderators.isEmpty || definition.rules.contains { rule in
            rule.trigger != nil || rule.actions.contains { $0.kind == .verify }
        }
    }

    func start() async {
        parts.rules.onReplace { [book] in book.changed.ring() }
    }

    /// The login, then any change of the book (a new watch or verification).
    func changed() async {
        if session.loggedIn.isOpen { await book.changed.wait() } else { await session.loggedIn.wait() }
    }

    /// Does what is due now; the wall time (ms) of the next thing due, if any.
    func tick() async -> Int64? {
        guard session.loggedIn.isOpen else { return nil }
        let now = parts.time.wallMilliseconds
        let (started, lookup) = clock.withLock { clock in
            if clock.started == nil {
                clock.started = now
                // The set-up after the login looked the moderators up just now.
                clock.moderatorLookup = now + ModeratorSetup.retry.milliseconds
            }
            return (clock.started ?? now, clock.moderatorLookup)
        }
        let rules = parts.rules.now.definition.rules
        let state = book.state
        var next: Int64?
        func later(_ time: Int64?) { if let time { next = min(next ?? time, time) } }

        // Moderators whose account did not exist yet (or who were listed by a reload).
        let listed = parts.rules.now.definition.moderation.moderators
        if listed.contains(where: { book.moderator(named: $0) == nil }) || listed.count != (state.moderators ?? [:]).count {
            var next = lookup
            if lookup <= now {
                await ModeratorSetup(parts: parts).run()
                next = now + ModeratorSetup.retry.milliseconds
                clock.withLock { $0.moderatorLookup = next }
            }
            later(next)
        }

        for rule in rules {
            guard let trigger = rule.trigger, case .schedule(let cron, let zone, let missed) = trigger.kind else { continue }
            let timeZone = zone ?? TimeZone(identifier: parts.rules.now.definition.timezone ?? "UTC") ?? .gmt
            guard let last = state.schedules[trigger.id] else {
                // First start with this schedule: it counts from now, nothing was missed.
                book.setScheduled(rule: trigger.id, at: now)
                later(cron.next(after: now, in: timeZone))
                continue
            }
            var due: [Int64] = []
            var time = cron.next(after: last, in: timeZone)
            while let current = time, current <= now {
                due.append(current)
                if due.count > 1_000 { due.removeFirst() }
                time = cron.next(after: current, in: timeZone)
            }
            if let latest = due.last {
                for run in Self.runs(due, missed: missed, started: started) {
                    await fire(trigger, at: run, conversation: nil)
                }
                book.setScheduled(rule: trigger.id, at: latest)
            }
            later(time)
        }

        for (key, watch) in state.quiet {
            let id = String(key.prefix { $0 != "/" })
            guard let trigger = rules.lazy.compactMap(\.trigger).first(where: { $0.id == id }),
                  case .quiet(_, let within) = trigger.kind else {
                // Its rule is gone.
                book.setQuiet(rule: id, conversation: watch.conversation, nil)
                continue
            }
            let due = watch.last + within
            if due <= now {
                await fire(trigger, at: due, conversation: watch.conversation)
                book.setQuiet(rule: id, conversation: watch.conversation, nil)
            } else {
                later(due)
            }
        }

        for pending in state.verifications.values {
            if pending.deadline <= now {
                await expire(pending)
            } else {
                later(pending.deadline)
            }
        }
        return next
    }

    /// The due times to run: those after the service started, and of those missed before
    /// it, none, the latest or all (at most the latest 100), as `missed:` says.
    static func runs(_ due: [Int64], missed policy: TriggerCondition.MissedRuns, started: Int64) -> [Int64] {
        let missed = due.filter { $0 < started }
        let onTime = due.filter { $0 >= started }
        switch policy {
        case .skip: return onTime
        case .once: return missed.suffix(1) + onTime
        case .all: return missed.suffix(100) + onTime
        }
    }

    /// Decides and runs the rules of `trigger` for its time `at` (wall ms).
    func fire(_ trigger: TriggerCondition, at time: Int64, conversation: ConversationRef?) async {
        let rules = parts.rules.now
        let kind: EventType
        switch trigger.kind {
        case .schedule: kind = .other("schedule")
        case .quiet: kind = .other("quiet")
        }
        // A position of its own for each trigger time, so the actions' ids are stable
        // across a restart that runs it again, and never those of a feed event.
        let position = -(time * 1000 + (conversation?.id.rawValue ?? 0) % 1000)
        var event = BotEvent(event: Event(position: position, type: kind, at: Timestamp(milliseconds: time),
                                          conversation: conversation))
        event.trigger = trigger.id
        let context = run.context(rules)
        let decision = rules.engine.decide(event, context: context)
        let place = conversation.map { " in \($0.address)" } ?? ""
        guard !decision.firings.isEmpty else {
            parts.logger.debug("bot \(parts.name): \(trigger.summary)\(place): no rule's conditions hold")
            return
        }
        parts.logger.info("bot \(parts.name): \(trigger.summary)\(place): "
                          + decision.firings.map(\.rule.name).joined(separator: ", "))
        // Position 0: a trigger moves no feed watermark.
        _ = await run.act(decision, event: event, context: context, rules: rules, position: 0)
    }

    /// Removes a newcomer who did not answer in time, with a case in the mod-log.
    func expire(_ pending: PendingVerification) async {
        let book = parts.moderation.book
        let action: ModerationAction = pending.fail == "ban" ? .ban : .kick
        let act = ModerationAct.member(action, group: pending.group, user: pending.user, duration: nil,
                                       reason: "did not answer the verification in time")
        do {
            try await ModerationCalls.perform(act, with: parts.client, matrix: parts.matrix)
        } catch where error.apiCode == .notFound || error.apiCode == .forbidden {
            // Gone already, or out of the bot's reach: nothing to wait for.
            parts.logger.notice("bot \(parts.name): \(act) was not needed or not allowed: \(error.message)")
            book.setVerification(group: pending.group, user: pending.user, nil)
            return
        } catch {
            // Tried again at the next tick (the service wakes on the next change or due time).
            parts.logger.warning("bot \(parts.name): \(act) failed: \(error.message)")
            return
        }
        let key = "b:\(parts.name):verify:\(pending.group):\(pending.user):\(pending.deadline)"
        let opened = book.open(ModerationCase(
            number: 0, key: key, at: Timestamp(milliseconds: parts.time.wallMilliseconds), action: action.rawValue,
            detail: nil, user: pending.user, conversation: "group:\(pending.group)", rule: pending.rule,
            by: parts.rules.now.definition.account.username, text: "no answer to the verification", strike: nil,
            undoes: nil, undoneBy: nil, dry: nil))
        book.setVerification(group: pending.group, user: pending.user, nil)
        guard let log = parts.rules.now.definition.moderation.log else { return }
        let line = OutgoingMessage(to: log, text: opened.line, clientMessageID: IdempotencyKey.derived(from: key, "log"),
                                   rule: pending.rule, action: .report)
        run.reply([line], position: 0)
    }
}
