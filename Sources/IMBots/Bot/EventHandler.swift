import IMClient
import IMProtocol
import Lifecycle

/// Handles a bot's feed events: decides which rules fire and carries their actions out.
///
/// An event's state changes and the messages it decided are kept in one journal record,
/// then offered to the outbox (``BotRun``). An event whose rules call out over HTTP is
/// handed to its conversation's lane instead (and so are the events of that
/// conversation that come while the lane is busy), so a slow endpoint holds up only its
/// own conversation. Events of one conversation are always handled in feed order.
struct EventHandler: Sendable {
    let run: BotRun
    let senders: SenderDirectory
    let lanes: ConversationLanes

    init(parts: BotParts, session: BotSession, senders: SenderDirectory, outbox: Outbox, lanes: ConversationLanes,
         http: HTTPActionClient) {
        run = BotRun(parts: parts, outbox: outbox, session: session, http: http)
        self.senders = senders
        self.lanes = lanes
    }

    private var parts: BotParts { run.parts }
    private var session: BotSession { run.session }

    /// One event from the feed, in feed order; returns once it is handled or journaled.
    func receive(_ event: Event) async {
        guard event.type != .kickedOut, parts.journal.isNew(event.position) else { return }
        let now = parts.time.wallMilliseconds
        parts.metrics.pollLag(bot: parts.name, seconds: Double(now - event.at.milliseconds) / 1000)
        if SenderDirectory.observes(event) {
            await senders.observe(event)
            await parts.moderation.joins.observe(event)
        }
        let rules = parts.rules.now
        if case .newerThan(let age) = rules.definition.backlog,
           event.at.milliseconds < session.startedAt - Int64(age.seconds * 1000) {
            parts.metrics.eventHandled(bot: parts.name)
            return
        }
        let moderation = ModerationObserver(parts: parts)
        await moderation.observe(event, rules.definition)
        if let replies = await moderation.answer(event) {
            run.reply(replies, position: event.position)
            return
        }
        // A command a service answers (with calls of its own) waits in the lane too.
        if lanes.isBusy(with: event) || parts.taps.tap(for: event, bot: session.identity) != nil {
            lanes.accept(event)
            return
        }
        guard let decided = await decide(event, rules) else {
            parts.metrics.eventHandled(bot: parts.name)
            return
        }
        if decided.decision.firings.contains(where: { $0.rule.callsOut }) {
            // Decided again, and counted then, when the lane takes it.
            lanes.accept(event)
            return
        }
        parts.moderation.windows.record(decided.decision.windowHits, at: decided.context.now.milliseconds)
        _ = await act(decided, rules, event: event)
    }

    /// An event a lane took over: decided again with the state of now, and handled.
    /// False when stopped midway (it stays in the journal for the next start).
    func handleAccepted(_ event: Event) async -> Bool {
        if let tap = parts.taps.tap(for: event, bot: session.identity) { return await answer(event, with: tap) }
        let rules = parts.rules.now
        guard let decided = await decide(event, rules) else {
            run.reply([], position: event.position)
            return true
        }
        parts.moderation.windows.record(decided.decision.windowHits, at: decided.context.now.milliseconds)
        return await act(decided, rules, event: event)
    }

    /// A command a service answers: its replies are recorded with the event as handled.
    private func answer(_ event: Event, with tap: any CommandTap) async -> Bool {
        let role = await role(of: event.message?.sender, in: event)
        let replies = await tap.handle(event, role: role)
        guard !Task.isCancelled else { return false }
        run.reply(replies, position: event.position)
        return true
    }

    private struct Decided {
        var event: BotEvent
        var decision: Decision
        var context: BotContext
    }

    /// The rules that fire, with the event as they see it; nil when none does. The
    /// sender's profile and role, and a member's role, are looked up only when a rule
    /// needs them.
    ///
    /// A member event's sender is its member, unless someone else acted (`by`: who kicked
    /// or muted the member), as in examples.
    private func decide(_ event: Event, _ rules: LiveRules.Current) async -> Decided? {
        let actedOnOther = event.by != nil && event.by?.lowercased() != event.user?.username.lowercased()
        // A `member_joined` event says how the member came in (`via`), which `member: {via: …}` reads.
        let written = event.type == .message || event.type == .messageEdited
        var botEvent = BotEvent(event: event, sender: written || actedOnOther ? nil : event.user)
        let lookups = rules.engine.decisionLookups
        // On Matrix the event carries the sender as the homeserver named them, and roles
        // come from the room's power levels.
        let onMatrix = parts.matrix != nil
        if lookups.contains(.profile) { botEvent.sender = onMatrix ? event.user : await senders.profile(causing: event) }
        if lookups.contains(.role) { botEvent.senderRole = await role(of: botEvent.actor, in: event) }
        if lookups.contains(.memberRole), let member = botEvent.member {
            botEvent.memberRole = await role(of: member.username, in: event)
        }
        if lookups.contains(.joined) { botEvent.senderJoinedAt = await parts.moderation.joins.joinedAt(botEvent.actor, in: event) }
        let context = run.context(rules)
        let decision = rules.engine.decide(botEvent, context: context)
        guard !decision.firings.isEmpty else {
            // Nothing fired, but the event still counts for the rules' `rate` and `repeated`.
            parts.moderation.windows.record(decision.windowHits, at: context.now.milliseconds)
            return nil
        }
        if botEvent.sender == nil, decision.firings.contains(where: { $0.rule.actionLookups.contains(.profile) }) {
            botEvent.sender = onMatrix ? event.user : await senders.profile(causing: event)
        }
        return Decided(event: botEvent, decision: decision, context: context)
    }

    /// A member's role where `event` happened: from the group's members on Switchboard,
    /// from the room's power levels on Matrix.
    private func role(of username: String?, in event: Event) async -> MemberRole? {
        guard let link = parts.matrix else { return await senders.role(of: username, in: event) }
        guard let username else { return nil }
        return await link.role(of: username, in: event.conversation?.address, now: parts.time.seconds)
    }

    private func act(_ decided: Decided, _ rules: LiveRules.Current, event: Event) async -> Bool {
        await run.act(decided.decision, event: decided.event, context: decided.context, rules: rules,
                      position: event.position)
    }
}
