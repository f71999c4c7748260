import IMClient
import IMProtocol

/// The one path from a way in to the journal and the outbox: a feed event
/// (``EventHandler``), a `schedule` or `quiet` trigger (``BotTimers``), and the replies of
/// what answers a message itself (a command tap, a newcomer's verification answer) all
/// build their context here, act through the runner's effects here, and are audited,
/// counted, journaled and offered to the outbox here. Webhook deliveries take the same
/// decide → act step (``ActionRunner/act(_:event:context:effects:position:sheddable:)``)
/// and journal it with the incidents it changes (``AlertDesk``).
///
/// So a long `send` is split into parts, the loop guard and budgets hold, dry and shadow
/// rules act on nothing, and every run is in the audit log and the metrics, whichever way
/// it came in.
struct BotRun: Sendable {
    let parts: BotParts
    let outbox: Outbox
    let session: BotSession
    let http: HTTPActionClient

    /// What every way in decides with: the bot as logged in, its state, the time, and
    /// what moderation counted.
    func context(_ rules: LiveRules.Current) -> BotContext {
        var context = BotContext(definition: rules.definition, id: session.identity.id, state: parts.journal.variables,
                                 now: Timestamp(milliseconds: parts.time.wallMilliseconds))
        context.bot = session.identity
        context.windows = parts.moderation.windows
        return context
    }

    /// The runner's effects for one run, under the rules' loop guard.
    func effects(_ rules: LiveRules.Current) -> ClientEffects {
        ClientEffects(client: parts.client, http: http, loopGuard: rules.loopGuard, moderation: parts.moderation.book)
    }

    /// Acts on a decision that fired rules, then audits, counts, journals (`position`: the
    /// feed position the record moves past, 0 for none) and offers its messages. False
    /// when stopped midway: nothing is recorded, so a feed event is handled again at the
    /// next start.
    func act(_ decision: Decision, event: BotEvent, context: BotContext, rules: LiveRules.Current,
             position: Int64) async -> Bool {
        for firing in decision.firings { parts.metrics.count(bot: parts.name, rule: firing.rule.name, .matched) }
        let started = parts.time.elapsed
        let acted = await ActionRunner.act(decision, event: event, context: context, effects: effects(rules),
                                           position: position)
        guard !Task.isCancelled else { return false }
        parts.metrics.actionLatency(bot: parts.name, seconds: (parts.time.elapsed - started).seconds)
        parts.reporter.record(acted.report, event: event.event, version: rules.definition.version)
        commit(acted.messages, state: acted.report.operations, position: position)
        return true
    }

    /// Replies decided without rules (a command tap's, a verification's): split like any
    /// send, journaled with the event that asked (`position`) as handled, and offered.
    func reply(_ messages: [OutgoingMessage], position: Int64) {
        commit(messages.flatMap { PendingMessage.parts(of: $0, position: position) }, state: [], position: position)
    }

    private func commit(_ messages: [PendingMessage], state: [StateOperation], position: Int64) {
        parts.journal.record(.handled(position: position, state: state, messages: messages))
        outbox.offer(messages)
        if position > 0 { parts.metrics.eventHandled(bot: parts.name) }
    }
}
