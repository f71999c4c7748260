import IMClient
import IMProtocol

/// Runs what the timer service finds due: a trigger rule's actions, as for a feed event
/// (journaled, then sent by the outbox), and the removal of a newcomer whose verification
/// ran out.
struct TriggerRun: Sendable {
    let parts: BotParts
    let outbox: Outbox
    let http: HTTPActionClient

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
        var context = BotContext(definition: rules.definition, state: parts.journal.variables,
                                 now: Timestamp(milliseconds: parts.time.wallMilliseconds))
        context.windows = parts.moderation.windows
        let decision = rules.engine.decide(triggered: event, context: context)
        let place = conversation.map { " in \($0.address)" } ?? ""
        guard !decision.firings.isEmpty else {
            parts.logger.debug("bot \(parts.name): \(trigger.summary)\(place): no rule's conditions hold")
            return
        }
        parts.logger.info("bot \(parts.name): \(trigger.summary)\(place): "
                          + decision.firings.map(\.rule.name).joined(separator: ", "))
        for firing in decision.firings { parts.metrics.count(bot: parts.name, rule: firing.rule.name, .matched) }
        let effects = ClientEffects(client: parts.client, http: http, loopGuard: rules.loopGuard,
                                    moderation: parts.moderation.book)
        let report = await ActionRunner.run(decision, event: event, context: context, effects: effects)
        parts.reporter.record(report, event: event.event, version: rules.definition.version)
        let messages = effects.messages.map { PendingMessage($0, position: 0) }
        // Position 0: a trigger moves no feed watermark.
        parts.journal.record(.handled(position: 0, state: report.operations, messages: messages))
        outbox.offer(messages)
    }

    /// Removes a newcomer who did not answer in time, with a case in the mod-log.
    func expire(_ pending: PendingVerification) async {
        let book = parts.moderation.book
        let action: ModerationAction = pending.fail == "ban" ? .ban : .kick
        let act = ModerationAct.member(action, group: pending.group, user: pending.user, duration: nil,
                                       reason: "did not answer the verification in time")
        do {
            try await ModerationCalls.perform(act, with: parts.client)
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
        let messages = [PendingMessage(line, position: 0)]
        parts.journal.record(.queued(messages))
        outbox.offer(messages)
    }
}
