import IMClient
import IMProtocol
import Lifecycle

/// A bot's main loop: logs in, applies its setup, then polls its feed and hands each
/// event to the `EventHandler`, one at a time, in feed order; beside it the lanes work
/// the events whose rules call out over HTTP, and stop with it.
///
/// Returns when its task is cancelled or the login ends for good (refused, or taken by
/// another runner), which stops the bot.
struct EventLoop: Service {
    let name: String
    let parts: BotParts
    let session: BotSession
    let handler: EventHandler
    let lanes: ConversationLanes
    let password: String

    // Kept shallow on purpose: this runs for the bot's whole life in the bot's task, and a
    // task keeps the memory of the deepest chain of calls it ever made until it ends (its
    // allocator merges freed frames into one block of their whole size, and keeps it).
    // Login with setup, the deepest chain and done once, runs in a child task of its own,
    // whose memory is given back when it ends. (Handling each event in a child task too
    // saved a little more and cost about 5% more CPU per reply: BENCHMARKS.md.)
    func run() async throws {
        if let link = parts.matrix {
            lanes.start(handler: handler)
            await MatrixEventLoop(link: link, parts: parts, session: session, handler: handler).run()
            await lanes.stop()
            return
        }
        guard await inChildTask({ await connect() }) ?? false else { return }
        lanes.start(handler: handler)
        var events = makeStream().makeAsyncIterator()
        do {
            while let item = try await events.next() { await handle(item) }
        } catch {
            stopped(by: error)
        }
        parts.metrics.connected(bot: parts.name, false)
        await lanes.stop()
    }

    @inline(never)
    private func stopped(by error: IMClientError) {
        parts.logger.error("bot \(parts.name) stopped: \(error.message)")
    }

    /// Logs in and applies the file's setup; false when the login is refused for good.
    @inline(never)
    private func connect() async -> Bool {
        guard let identity = await BotLogin(parts: parts, password: password).run() else { return false }
        session.begin(as: await BotSetup(parts: parts).apply(identity))
        return true
    }

    /// The bot's feed from its journal's cursor, announced in the log.
    @inline(never)
    private func makeStream() -> EventStream {
        let definition = parts.rules.now.definition
        let time = parts.time
        let options = EventStreamOptions(
            pollTimeout: parts.configuration.pollTimeout, sleep: { try await time.sleep(for: $0) },
            monotonic: { time.elapsed })
        let cursor = JournalCursorStore(journal: parts.journal, resumes: definition.backlog != .skip,
                                        sleep: { try await time.sleep(for: $0) })
        parts.metrics.connected(bot: parts.name, true)
        parts.logger.info("bot \(parts.name) is running as \(definition.account.username)",
                          [("rules", String(definition.rules.count)), ("version", definition.version)])
        return parts.client.events(cursor: cursor, options: options)
    }

    @inline(never)
    private func handle(_ item: LiveEvent) async {
        let bot = parts.name
        switch item {
        case .event(let event):
            await handler.receive(event)
        case .unreadable(let unreadable):
            parts.logger.warning("bot \(bot): event \(unreadable.position) (\(unreadable.type)) cannot be read by "
                                 + "this version of switchboard and is skipped: \(unreadable.reason)")
        case .resyncNeeded(let reason):
            parts.journal.record(.resync)
            parts.metrics.cursorReset(bot: bot)
            parts.logger.warning("bot \(bot): the server no longer knows its cursor (\(reason)); continuing from now")
        case .disconnected(let error, let retryIn):
            parts.metrics.connected(bot: bot, false)
            parts.logger.warning("bot \(bot): \(error.message); retrying in \(retryIn)")
        case .reconnected:
            parts.metrics.connected(bot: bot, true)
            parts.logger.info("bot \(bot): connected again")
        }
    }

    /// Runs `work` in a child task and returns its result (nil only if the child was never
    /// run, which a task group does not do).
    private func inChildTask<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T.self) { group in
            group.addTask(operation: work)
            return await group.next()
        }
    }
}
