import IMClient
import IMProtocol

/// The one path from a way in to the journal and the outbox: a feed event
/// (``EventHandler``), a `schedule` or `quiet` trigger (``ModerationTimers``), and the
/// replies of what answers a message itself (a command tap, a newcomer's verification
/// answer) all build their context here, act through the runner's effects here, and are
/// kept by the bot's ``RunLedger``: audited, counted, journaled in one `handled` record
/// and offered to the outbox. Webhook deliveries, held resolves, dead-man's switches and
/// the alert commands' steps take the same decide → act step
/// (``ActionRunner/act(_:event:context:effects:position:)``) and are kept by the same
/// ledger, each in one `alerts` record with the incidents it changes (``AlertDesk``).
///
/// So a long `send` is split into parts, the loop guard and budgets hold, dry and shadow
/// rules act on nothing, every run is in the audit log and the metrics, and a message the
/// outbox cannot take is marked done and reported, whichever way it came in.
struct BotRun: Sendable {
    let ledger: RunLedger
    let session: BotSession
    let http: HTTPActionClient

    init(parts: BotParts, outbox: Outbox, session: BotSession, http: HTTPActionClient) {
        ledger = RunLedger(parts: parts, outbox: outbox)
        self.session = session
        self.http = http
    }

    var parts: BotParts { ledger.parts }

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
        ClientEffects(client: parts.client, http: http, loopGuard: rules.loopGuard, moderation: parts.moderation.book,
                      matrix: parts.matrix)
    }

    /// Acts on a decision that fired rules, then keeps the run (`position`: the feed
    /// position its record moves past, 0 for none). False when stopped midway: nothing
    /// is kept, so a feed event is handled again at the next start.
    func act(_ decision: Decision, event: BotEvent, context: BotContext, rules: LiveRules.Current,
             position: Int64) async -> Bool {
        let started = parts.time.elapsed
        let acted = await ActionRunner.act(decision, event: event, context: context, effects: effects(rules),
                                           position: position)
        guard !Task.isCancelled else { return false }
        parts.metrics.actionLatency(bot: parts.name, seconds: (parts.time.elapsed - started).seconds)
        ledger.keep(.handled(position: position, state: acted.report.operations, messages: acted.messages),
                    fired: [RunLedger.Fired(rules: decision.firings.map(\.rule.name), report: acted.report)],
                    event: event.event, version: rules.definition.version)
        return true
    }

    /// Replies decided without rules (a command tap's, a verification's; none for an
    /// event no rule wanted): split like any send, kept with the event that asked
    /// (`position`) as handled.
    func reply(_ messages: [OutgoingMessage], position: Int64) {
        ledger.keep(.handled(position: position, state: [],
                             messages: messages.flatMap { PendingMessage.parts(of: $0, position: position) }),
                    version: parts.rules.now.definition.version)
    }
}
