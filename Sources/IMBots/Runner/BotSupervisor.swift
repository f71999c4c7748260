import Foundation
import IMClient
import IMProtocol
import Logging
import SwitchboardCrypto
import Templates

/// One bot at work: its login, event stream, rules, outgoing queues, state and cursor.
///
/// Events are taken in feed order and evaluated one at a time, so state changes never
/// race. An event's effects (new state variables, messages to send) and its place in the
/// feed are recorded together in the state file, which is replaced atomically: after a
/// crash the bot resumes from the last snapshot, re-runs exactly the events after it and
/// re-sends the messages that were not confirmed. Messages carry deterministic client
/// ids, so a re-sent message is dropped by the server as a repeat: replies happen once.
/// Messages go out through per-conversation outboxes (budgets, retries, 429 pauses per
/// conversation).
actor BotSupervisor {
    private(set) var definition: BotDefinition
    private var engine: RuleEngine
    private let configuration: RunnerConfiguration
    let client: IMClient
    private let transport: any HTTPTransport
    private let metrics: RunnerMetrics
    private let audit: AuditLog
    private let logger: Logger
    private let lock: RunnerLock
    private let statePath: String
    private let sleep: SleepFunction

    private var state: BotStateFile
    private var tracker: DeliveryTracker
    private var offeredCursors: [(cursor: String, through: Int64)] = []
    /// Messages decided by the event being handled, moved to the outbox when it ends.
    private var decided: [OutgoingMessage] = []
    private var outboxes: [String: Outbox] = [:]
    private var budget: SendBudget
    private var loopGuard: LoopGuard
    private var identity: BotContext.Identity
    private var senders: [String: (user: User, fetched: Double)] = [:]
    /// Members' roles per group, for rules with `from: { role: … }`.
    private var roles: [String: (byUser: [String: MemberRole], fetched: Double)] = [:]
    private var lastSave = -Double.infinity
    private var saveScheduled = false
    private var startedAt = Timestamp.now()

    /// Takes the bot's lock and reads its state; throws when another runner holds it.
    init(
        definition: BotDefinition, configuration: RunnerConfiguration, transport: any HTTPTransport,
        metrics: RunnerMetrics, audit: AuditLog, logger: Logger, sleep: @escaping SleepFunction = systemSleep
    ) throws {
        self.definition = definition
        self.engine = RuleEngine(bot: definition)
        self.configuration = configuration
        self.transport = transport
        self.metrics = metrics
        self.audit = audit
        self.logger = logger
        self.sleep = sleep
        let folder = configuration.stateDirectory + "/" + definition.name
        self.lock = try RunnerLock(path: folder + "/lock", bot: definition.name)
        self.statePath = folder + "/state.json"
        let loaded = BotStateFile.load(folder + "/state.json") { logger.warning($0) }
        var initial = loaded
        if loaded.cursor == nil && loaded.variables.isEmpty { initial.variables = definition.initialState }
        self.state = initial
        self.tracker = DeliveryTracker(handledThrough: loaded.handledThrough, finishedAbove: Set(loaded.finishedAbove))
        self.client = IMClient(
            serverURL: configuration.serverURL, transport: transport, device: "runner:\(definition.name)")
        self.budget = Self.budget(for: definition)
        self.loopGuard = LoopGuard(maxPerMinute: definition.maxRepliesPerMinute, clock: { monotonicNow() })
        self.identity = BotContext.Identity(
            username: definition.account.username, nickname: definition.profile?.nickname ?? definition.account.nickname)
    }

    private static func budget(for definition: BotDefinition) -> SendBudget {
        func limit(_ rate: Rate) -> SendBudget.Limit {
            SendBudget.Limit(perSecond: rate.perSecond, burst: Double(max(1, rate.count)))
        }
        let limits = definition.limits
        return SendBudget(
            total: limit(limits.total), perConversation: limit(limits.perConversation),
            perGroup: limit(limits.perGroup), clock: { monotonicNow() })
    }

    var name: String { definition.name }

    // MARK: Running

    /// Logs in, applies the profile, and handles events until the task is cancelled or the
    /// login ends for good (logged in elsewhere, wrong password).
    func run() async {
        startedAt = .now()
        guard await logIn() else {
            lock.release()
            return
        }
        await applyProfile()
        await joinConversations()
        for message in state.outbox { queue(message) }
        let initial: String? = definition.backlog == .skip ? nil : state.cursor
        let store = DeferredCursorStore(initial: initial) { [weak self] cursor in await self?.offer(cursor) }
        let stream = client.events(cursor: store, options: EventStreamOptions(pollTimeout: configuration.pollTimeout))
        metrics.connected(bot: name, true)
        logger.info("bot \(name) is running as \(definition.account.username)", [("rules", String(definition.rules.count)), ("version", definition.version)])
        do {
            for try await item in stream {
                switch item {
                case .event(let event):
                    await handle(event)
                case .unreadable(let unreadable):
                    logger.warning("bot \(name): event \(unreadable.position) (\(unreadable.type)) cannot be read by this "
                                   + "version of switchboard and is skipped: \(unreadable.reason)")
                    if tracker.pull(unreadable.position) { finish(unreadable.position) }
                case .resyncNeeded(let reason):
                    metrics.cursorReset(bot: name)
                    logger.warning("bot \(name): the server no longer knows its cursor (\(reason)); continuing from now")
                case .disconnected(let error, let retryIn):
                    metrics.connected(bot: name, false)
                    logger.warning("bot \(name): \(error.message); retrying in \(retryIn)")
                case .reconnected:
                    metrics.connected(bot: name, true)
                    logger.info("bot \(name): connected again")
                }
            }
        } catch {
            logger.error("bot \(name) stopped: \(error.message)")
        }
        metrics.connected(bot: name, false)
        await drain()
        lock.release()
    }

    /// Logs in (registering when the file says so), retrying while the server cannot be
    /// reached or asks to wait; false when the login is refused for good.
    ///
    /// A bot that never ran here registers first (and logs in when the account exists), so
    /// a runner starting many new bots does not pile up failed logins from its address,
    /// which the server would lock out; one that ran before logs in first.
    private func logIn() async -> Bool {
        let account = definition.account
        let registerFirst = account.register && state.cursor == nil && state.handledThrough == 0
        var failures = 0
        while !Task.isCancelled {
            do {
                let auth: AuthResponse
                if registerFirst {
                    do {
                        auth = try await register()
                    } catch where error.apiCode == .conflict {
                        auth = try await client.login(username: account.username, password: account.password)
                    }
                } else {
                    do {
                        auth = try await client.login(username: account.username, password: account.password)
                    } catch where error.apiCode == .unauthorized && account.register {
                        auth = try await register()
                    }
                }
                identity = BotContext.Identity(username: auth.user.username, id: auth.user.id, nickname: auth.user.nickname)
                return true
            } catch {
                if error.isTransient {
                    failures += 1
                    let delay = error.retryAfter.map { Duration.seconds($0) }
                        ?? BackoffPolicy().delay(afterFailures: failures, random: Double.random(in: 0..<1))
                    if failures == 1 || failures % 10 == 0 {
                        logger.warning("bot \(name): \(error.message); retrying")
                    }
                    try? await sleep(delay)
                    continue
                }
                let hint = error.apiCode == .conflict
                    ? " (the account exists with another password)" : error.apiCode == .unauthorized && !account.register
                    ? " (set account.register: true to create it)" : ""
                logger.error("bot \(name) cannot log in as \(account.username): \(error.message)\(hint)")
                return false
            }
        }
        return false
    }

    private func register() async throws(IMClientError) -> AuthResponse {
        let account = definition.account
        let auth = try await client.register(
            username: account.username, password: account.password,
            nickname: account.nickname ?? definition.profile?.nickname, bot: true)
        logger.notice("bot \(name): registered the account \(account.username)")
        return auth
    }

    /// Applies the file's profile: changed fields only, and the avatar when its file changed.
    private func applyProfile() async {
        guard let profile = definition.profile, let me = try? await client.me() else { return }
        var update = ProfileUpdate()
        if let nickname = profile.nickname, nickname != me.nickname { update.nickname = nickname }
        if let signature = profile.signature, signature != me.signature { update.signature = signature }
        if !profile.attrs.isEmpty, profile.attrs != me.attrs { update.attrs = profile.attrs }
        do {
            if !update.isEmpty {
                let updated = try await client.updateProfile(update)
                identity.nickname = updated.nickname
            }
            if let path = profile.avatarPath, let image = FileManager.default.contents(atPath: path) {
                let hash = Digest.hex(Digest.sha256(image))
                if hash != state.avatarHash || me.avatarURL.isEmpty {
                    _ = try await client.uploadAvatar(image)
                    state.avatarHash = hash
                    save(now: true)
                }
            }
        } catch {
            logger.warning("bot \(name): could not apply the profile: \(error.message)")
        }
    }

    /// Joins the groups and enters the rooms of `join:`, creating those that do not exist.
    private func joinConversations() async {
        for address in definition.join {
            do {
                switch address {
                case .group(let name):
                    do {
                        _ = try await client.joinGroup(name)
                    } catch where error.apiCode == .notFound {
                        _ = try await client.createGroup(name: name)
                        logger.notice("bot \(self.name): created group:\(name)")
                    }
                case .room(let name):
                    _ = try await client.createRoom(name: name)
                default:
                    continue
                }
            } catch {
                logger.warning("bot \(self.name): cannot join \(address): \(error.message)")
            }
        }
    }

    /// Swaps in reloaded rules (same account); events after this use them.
    func replace(_ new: BotDefinition) {
        definition = new
        engine = RuleEngine(bot: new)
        budget = Self.budget(for: new)
        loopGuard = LoopGuard(maxPerMinute: new.maxRepliesPerMinute, clock: { monotonicNow() })
        for (key, outbox) in outboxes { Task { if await outbox.count == 0 { self.dropOutbox(key, outbox) } } }
    }

    private func dropOutbox(_ key: String, _ outbox: Outbox) {
        if outboxes[key] === outbox { outboxes[key] = nil }
    }

    // MARK: Events

    private func handle(_ event: Event) async {
        guard event.type != .kickedOut, tracker.pull(event.position) else { return }
        let now = Timestamp.now()
        metrics.pollLag(bot: name, seconds: Double(now.milliseconds - event.at.milliseconds) / 1000)
        if case .newerThan(let age) = definition.backlog, event.at < startedAt.adding(seconds: -age.seconds) {
            finish(event.position)
            return
        }
        var botEvent = BotEvent(event: event, sender: await sender(of: event))
        botEvent.senderRole = await role(of: botEvent.actor, in: event)
        let context = BotContext(definition: definition, id: identity.id, state: state.variables, now: now)
        let decision = engine.decide(botEvent, context: context)
        guard !decision.firings.isEmpty else {
            finish(event.position)
            return
        }
        for firing in decision.firings { metrics.count(bot: name, rule: firing.rule.name, .matched) }
        let started = monotonicNow()
        decided = []
        let effects = ClientEffects(
            client: client, transport: transport,
            enqueue: { [weak self] message in await self?.decide(message) ?? false }, sleep: sleep)
        let report = await ActionRunner.run(decision, event: botEvent, context: context, effects: effects)
        metrics.actionLatency(bot: name, seconds: monotonicNow() - started)
        record(report, event: event)
        // The event's effects and its place in the feed are saved in one snapshot.
        state.variables = report.state
        let messages = decided.map { PendingMessage($0, position: event.position) }
        decided = []
        state.outbox += messages
        finish(event.position)
        for message in messages { queue(message) }
    }

    /// The sender's profile, cached for a minute (profile events refresh it).
    private func sender(of event: Event) async -> User? {
        if event.type == .profileUpdated, let user = event.user {
            senders[user.username] = (user, monotonicNow())
        }
        guard let username = event.message?.sender else { return event.user }
        if let cached = senders[username], monotonicNow() - cached.fetched < 60 { return cached.user }
        guard let user = try? await client.user(named: username) else { return senders[username]?.user }
        if senders.count > 10_000 { senders.removeAll() }
        senders[username] = (user, monotonicNow())
        return user
    }

    /// The group role of `username` when a rule asks for it (`from: { role: … }`) and the
    /// event is in a group: the members list, fetched when first needed and again after a
    /// minute or once the group's membership changed. Nil when unknown (the rule then does
    /// not match, and `explain` says the role was not known).
    private func role(of username: String?, in event: Event) async -> MemberRole? {
        guard engine.needsSenderRole, let username, let conversation = event.conversation,
              case .group(let group) = conversation.address else { return nil }
        let key = group.lowercased()
        switch event.type {
        case .memberJoined, .memberLeft, .memberKicked, .conversationUpdated: roles[key] = nil
        default: break
        }
        if let cached = roles[key], monotonicNow() - cached.fetched < 60 { return cached.byUser[username.lowercased()] }
        do {
            let members = try await client.groupMembers(group)
            if roles.count > 1_000 { roles.removeAll() }
            let byUser = Dictionary(members.map { ($0.user.username.lowercased(), $0.role) }, uniquingKeysWith: max)
            roles[key] = (byUser, monotonicNow())
            return byUser[username.lowercased()]
        } catch {
            logger.warning("bot \(name): cannot read the members of group:\(group) for a role check "
                           + "(trying again in 10 s): \(error)")
            let known = roles[key]?.byUser ?? [:]
            roles[key] = (known, monotonicNow() - 50)
            return known[username.lowercased()]
        }
    }

    private func record(_ report: ActionReport, event: Event) {
        var counted: Set<String> = []
        for outcome in report.outcomes {
            let outcomeName: String
            switch outcome.status {
            case .performed:
                outcomeName = "performed"
                if counted.insert(outcome.rule).inserted { metrics.count(bot: name, rule: outcome.rule, .fired) }
            case .dryRun:
                outcomeName = "\(outcome.mode)"
                if counted.insert(outcome.rule).inserted { metrics.count(bot: name, rule: outcome.rule, .suppressed) }
            case .failed(let error):
                outcomeName = "failed"
                let suppressed = error.message.hasPrefix("loop guard")
                metrics.count(bot: name, rule: outcome.rule, suppressed ? .suppressed : .failed)
                logger.error("bot \(name), rule \(outcome.rule), action \(outcome.actionIndex) (\(outcome.kind)): \(error.message)")
            case .skipped:
                outcomeName = "skipped"
            }
            audit.record(AuditLog.Entry(
                at: Timestamp.now().rfc3339, bot: name, rule: outcome.rule, configVersion: definition.version,
                action: outcome.kind.rawValue, mode: "\(outcome.mode)", outcome: outcomeName,
                conversation: event.conversation?.address.description, event: event.position,
                detail: outcome.effect.map { "\($0)" } ?? outcome.description))
        }
    }

    // MARK: Outgoing messages

    /// A message the rules decided to send (`BotEffects.send`); false when the loop guard
    /// holds it back.
    private func decide(_ message: OutgoingMessage) -> Bool {
        guard loopGuard.allow(message.to) else { return false }
        decided.append(message)
        return true
    }

    private func queue(_ message: PendingMessage) {
        let outbox = outboxes[message.to] ?? Outbox(
            client: client, budget: budget, sleep: sleep,
            finished: { [weak self] item, result in await self?.sent(item, result) })
        outboxes[message.to] = outbox
        Task { await outbox.enqueue(message) }
    }

    private func sent(_ message: PendingMessage, _ result: Outbox.Result) {
        if case .failed(let error) = result {
            metrics.count(bot: name, rule: message.rule, .failed)
            logger.error("bot \(name), rule \(message.rule): gave up sending to \(message.to): \(error.message)")
            audit.record(AuditLog.Entry(
                at: Timestamp.now().rfc3339, bot: name, rule: message.rule, configVersion: definition.version,
                action: message.action, mode: "enforce", outcome: "failed", conversation: message.to,
                event: message.position, detail: error.message))
        }
        if let index = state.outbox.firstIndex(where: { $0.clientMessageID == message.clientMessageID }) {
            state.outbox.remove(at: index)
        }
        save(now: false)
    }

    // MARK: Delivery bookkeeping

    private func finish(_ position: Int64) {
        tracker.finish(position)
        metrics.eventHandled(bot: name)
        advanceCursor()
        save(now: false)
    }

    /// The stream offers a batch's cursor once everything in the batch was pulled.
    private func offer(_ cursor: String) {
        offeredCursors.append((cursor, tracker.lastPulled))
        advanceCursor()
        save(now: false)
    }

    private func advanceCursor() {
        while let first = offeredCursors.first, first.through <= tracker.handledThrough {
            state.cursor = first.cursor
            offeredCursors.removeFirst()
        }
    }

    /// Writes the state file at most four times a second. Every write is a consistent
    /// snapshot, so losing the latest ones in a crash only means re-running the events
    /// after the snapshot, which is harmless (see the type's documentation).
    private func save(now immediately: Bool) {
        if immediately || monotonicNow() - lastSave > 0.25 {
            writeState()
        } else if !saveScheduled {
            saveScheduled = true
            Task {
                try? await Task.sleep(for: .milliseconds(250))
                self.writeState()
            }
        }
    }

    private func writeState() {
        saveScheduled = false
        lastSave = monotonicNow()
        state.handledThrough = tracker.handledThrough
        state.finishedAbove = tracker.finishedAbove.sorted()
        do {
            try state.save(statePath)
        } catch {
            logger.error("bot \(name): cannot save its state to \(statePath): \(error)")
        }
    }

    /// Waits (up to 10 s) for queued messages to go out, then saves the state.
    private func drain() async {
        let deadline = monotonicNow() + 10
        while !state.outbox.isEmpty, monotonicNow() < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if !state.outbox.isEmpty {
            logger.warning("bot \(name): stopping with \(state.outbox.count) messages unsent; they are sent on the next start")
        }
        writeState()
    }
}

/// Seconds on a monotonic clock.
func monotonicNow() -> Double {
    let now = ContinuousClock.now
    let elapsed = runnerClockStart.duration(to: now)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

private let runnerClockStart = ContinuousClock.now
