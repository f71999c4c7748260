import IMClient
import IMProtocol
import Lifecycle
import Logging
import MatrixClient

/// One bot at work: a small tree of services.
///
/// - the **journal** (`BotJournal`): the one owner of the bot's state and its one
///   write path, over a `JournalStore` that holds the bot's lock (the runner's
///   `JournalWriter` writes it);
/// - the **outbox** (`Outbox`): one queue and worker per conversation;
/// - services added by the runner's `BotServiceMaker`s (a webhook inbox, a scheduler);
/// - the **event loop** (`EventLoop`): login, setup, then poll → decide → act, with the
///   lanes (`ConversationLanes`) for events whose rules call out over HTTP.
///
/// They start in that order and stop in the reverse one, each after the one started
/// after it has returned: the event loop first (when ``run()``'s task is cancelled, or
/// the login ends), the added services, the outbox after draining, the journal last,
/// writing what is pending before it releases the lock. Everything the bot started has
/// ended when ``run()`` returns, and nothing writes after the lock is released.
///
/// This is the order of `Lifecycle.ServiceGroup`, kept by hand because a runner has many
/// bots and a task keeps the memory its deepest calls needed while it lives: a
/// `ServiceGroup` of three parts took 28 KiB per bot (two tasks and a task group per
/// part, measured with 2,000 idle groups). Here the event loop runs in the bot's own
/// task, an added service gets one task, and the outbox's workers exist only while they
/// have messages; every task is cancelled and awaited in ``run()``.
final class BotSupervisor: Service, BotSlot {
    let name: String
    /// The bot's name (`bot:`).
    let bot: String
    private let parts: BotParts
    private let outbox: Outbox
    private let lanes: ConversationLanes
    private let journal: BotJournal
    /// The bot's journal, read by the operator console.
    var consoleJournal: BotJournal? { journal }
    /// The makers' services: started before the event loop, stopped after it, in the
    /// reverse order, before the outbox and the journal.
    private let services: [any Service]
    private let loop: EventLoop

    /// Reads the bot's journal from `store` (which holds the bot: its folder lock, or its
    /// lease) and prepares its parts; throws when the journal cannot be read. The store
    /// is released when this throws, and when ``run()`` ends.
    ///
    /// - Parameters:
    ///   - password: what the bot logs in with.
    ///   - device: the device name of the bot's login (one per runner and bot).
    init(definition: BotDefinition, configuration: RunnerConfiguration, transport: any HTTPTransport,
         http: HTTPActionClient, writer: JournalWriter, reporter: BotReporter, routes: RunnerRoutes,
         groups: SharedGroups, makers: [any BotServiceMaker], store: any JournalStore, password: String,
         device: String, matrixSecret: MatrixSecret? = nil) async throws(RunnerError) {
        bot = definition.name
        name = "bot \(definition.name)"
        let time = configuration.time
        let journal: BotJournal
        do {
            journal = try await BotJournal(bot: bot, store: store, initialState: definition.initialState,
                                           writer: writer, logger: reporter.logger)
        } catch {
            await store.release()
            throw error
        }
        let client = IMClient(
            serverURL: configuration.serverURL, transport: transport, device: device,
            configuration: IMClient.Configuration(sendRetry: .never, sleep: { try await time.sleep(for: $0) }))
        var matrix: MatrixLink?
        if case .matrix(let account) = definition.platform, let matrixSecret {
            matrix = MatrixLink(account: account, secret: matrixSecret, device: account.device ?? "SWITCHBOARD-\(bot.uppercased())",
                                journal: journal, logger: reporter.logger,
                                transport: MatrixClient.sharedTransport, sleep: { try await time.sleep(for: $0) })
        }
        parts = BotParts(name: bot, client: client, transport: transport, rules: LiveRules(definition, time: time),
                         journal: journal, time: time, reporter: reporter, configuration: configuration,
                         routes: routes, groups: groups, matrix: matrix)
        let session = BotSession(
            identity: BotContext.Identity(username: definition.account.username,
                                          nickname: definition.profile?.nickname ?? definition.account.nickname),
            startedAt: time.wallMilliseconds)
        outbox = Outbox(parts: parts, loggedIn: session.loggedIn)
        lanes = ConversationLanes(parts: parts, session: session)
        let senders = SenderDirectory(client: client, time: time, bot: bot) { [logger = reporter.logger] in
            logger.warning($0)
        }
        let handler = EventHandler(parts: parts, session: session, senders: senders, outbox: outbox, lanes: lanes,
                                   http: http)
        let handle = BotHandle(parts: parts, outbox: outbox, session: session, http: http)
        loop = EventLoop(name: "event loop \(bot)", parts: parts, session: session, handler: handler, lanes: lanes,
                         password: password)
        self.journal = journal
        services = makers.compactMap { $0.makeService(for: handle) }
    }

    /// Runs the bot until cancelled or its login ends; then stops its parts in order.
    func run() async throws {
        let tasks = startParts()
        // Returns when this task is cancelled or the login ends.
        try? await loop.run()
        for task in tasks.reversed() {
            task.cancel()
            await task.value
        }
        await outbox.stop()
        await journal.close()
    }

    /// Starts the outbox with what the last run left (messages to send, lane events to
    /// handle) and the added services in tasks of their own. Messages a queue cannot take
    /// (alerts past a `limits.queue` lowered since) are done and reported, as in any run.
    /// Not inlined into ``run()``: its values would stay in the frame under every poll.
    @inline(never)
    private func startParts() -> [Task<Void, Never>] {
        let left = parts.journal.state
        RunLedger(parts: parts, outbox: outbox).offer(left.outbox, version: definition.version)
        for event in left.accepted { lanes.resume(event) }
        outbox.start()
        return services.map { service in
            Task { [logger = parts.logger] in
                do {
                    try await service.run()
                } catch {
                    logger.error("\(service.name) failed: \(error)")
                }
            }
        }
    }

    /// Gives the bot up without running it: releases its lock.
    func discard() async {
        await parts.journal.abandon()
    }

    /// The rules in use now.
    var definition: BotDefinition { parts.rules.now.definition }

    /// Swaps in reloaded rules (same account); events after this use them.
    func replace(_ definition: BotDefinition) {
        parts.rules.replace(with: definition)
    }
}
