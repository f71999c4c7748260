import IMClient
import IMProtocol
import Lifecycle

/// Handles a bot's feed events: decides which rules fire and carries their actions out.
///
/// An event's state changes and the messages it decided are recorded in the journal in
/// one record, then offered to the outbox. An event whose rules call out over HTTP is
/// handed to its conversation's lane instead (and so are the events of that
/// conversation that come while the lane is busy), so a slow endpoint holds up only its
/// own conversation. Events of one conversation are always handled in feed order.
struct EventHandler: Sendable {
    let parts: BotParts
    let session: BotSession
    let senders: SenderDirectory
    let outbox: Outbox
    let lanes: ConversationLanes
    let http: HTTPActionClient

    /// One event from the feed, in feed order; returns once it is handled or journaled.
    func receive(_ event: Event) async {
        guard event.type != .kickedOut, parts.journal.isNew(event.position) else { return }
        let now = parts.time.wallMilliseconds
        parts.metrics.pollLag(bot: parts.name, seconds: Double(now - event.at.milliseconds) / 1000)
        if SenderDirectory.observes(event) { await senders.observe(event) }
        let rules = parts.rules.now
        if case .newerThan(let age) = rules.definition.backlog,
           event.at.milliseconds < session.startedAt - Int64(age.seconds * 1000) {
            parts.metrics.eventHandled(bot: parts.name)
            return
        }
        if lanes.isBusy(with: event) {
            lanes.accept(event)
            return
        }
        guard let decided = await decide(event, rules) else {
            parts.metrics.eventHandled(bot: parts.name)
            return
        }
        if decided.decision.firings.contains(where: { $0.rule.callsOut }) {
            lanes.accept(event)
            return
        }
        _ = await act(decided, rules, event: event)
    }

    /// An event a lane took over: decided again with the state of now, and handled.
    /// False when stopped midway (it stays in the journal for the next start).
    func handleAccepted(_ event: Event) async -> Bool {
        let rules = parts.rules.now
        guard let decided = await decide(event, rules) else {
            parts.journal.record(.handled(position: event.position, state: [], messages: []))
            parts.metrics.eventHandled(bot: parts.name)
            return true
        }
        return await act(decided, rules, event: event)
    }

    private struct Decided {
        var event: BotEvent
        var decision: Decision
        var context: BotContext
    }

    /// The rules that fire, with the event as they see it; nil when none does. The
    /// sender's profile and role are looked up only when a rule needs them.
    private func decide(_ event: Event, _ rules: LiveRules.Current) async -> Decided? {
        var botEvent = BotEvent(event: event, sender: event.type == .message ? nil : event.user)
        let lookups = rules.engine.decisionLookups
        if lookups.contains(.profile) { botEvent.sender = await senders.profile(causing: event) }
        if lookups.contains(.role) { botEvent.senderRole = await senders.role(of: botEvent.actor, in: event) }
        let context = BotContext(
            bot: session.identity, state: parts.journal.variables,
            now: Timestamp(milliseconds: parts.time.wallMilliseconds), timezone: rules.definition.timezone ?? "UTC")
        let decision = rules.engine.decide(botEvent, context: context)
        guard !decision.firings.isEmpty else { return nil }
        if botEvent.sender == nil, decision.firings.contains(where: { $0.rule.actionLookups.contains(.profile) }) {
            botEvent.sender = await senders.profile(causing: event)
        }
        return Decided(event: botEvent, decision: decision, context: context)
    }

    private func act(_ decided: Decided, _ rules: LiveRules.Current, event: Event) async -> Bool {
        for firing in decided.decision.firings { parts.metrics.count(bot: parts.name, rule: firing.rule.name, .matched) }
        let started = parts.time.elapsed
        let effects = ClientEffects(client: parts.client, http: http, loopGuard: rules.loopGuard)
        let report = await ActionRunner.run(decided.decision, event: decided.event, context: decided.context, effects: effects)
        // Stopped midway: nothing is recorded, so the event is handled again at the next start.
        guard !Task.isCancelled else { return false }
        parts.metrics.actionLatency(bot: parts.name, seconds: (parts.time.elapsed - started).seconds)
        parts.reporter.record(report, event: event, version: rules.definition.version)
        let messages = effects.messages.map { PendingMessage($0, position: event.position) }
        parts.journal.record(.handled(position: event.position, state: report.operations, messages: messages))
        outbox.offer(messages)
        parts.metrics.eventHandled(bot: parts.name)
        return true
    }
}
