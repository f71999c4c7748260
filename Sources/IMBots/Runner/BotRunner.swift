import Foundation
import HTTPServer
import IMClient
import MatrixClient
import IMProtocol
import Lifecycle
import Logging
import Synchronization

/// Many bots in one process, as one service: loads the bot files, runs each bot's
/// service tree (`BotSupervisor`) in one task group, reloads when files change (or on
/// ``requestReload()``, e.g. from SIGHUP), and serves `/metrics`, `/healthz` and bots'
/// webhooks on its listener.
///
/// The start and every reload check each file and run its examples first (``BotCatalog``);
/// only a bot whose file passes both runs, or gets the new rules, swapped atomically. A
/// file that fails keeps its bot's old rules running (or, at the start, its bot stopped)
/// while the others run; every error is logged with file:line:column, and ``health``
/// (`/healthz`, `/metrics`) says which bots are affected and why. With
/// `RunnerConfiguration.strict` any problem at the start stops it instead.
public final class BotRunner: Service {
    public let name = "runner"
    public let configuration: RunnerConfiguration
    public let metrics: RunnerMetrics
    /// The bot files the runner could not take.
    public let health: RunnerHealth
    /// The listener's paths that bots' services answer.
    public let routes = RunnerRoutes()
    let transport: any HTTPTransport
    let logger: Logger
    let makers: [any BotServiceMaker]
    private let audit: AuditLog
    private let reloads = ReloadQueue()
    private let running = Mutex<[String: any BotSlot]>([:])
    private let listenerPort = Mutex<Int?>(nil)
    private let reloadingNow = Atomic<Bool>(false)
    /// This runner as its bots' leases name it (`runner.journal: server`): its id and a
    /// suffix of this process, so that a runner started again takes its bots afresh.
    let leaseHolder: String

    /// The services every runner gives its bots: moderation's timers (schedules, quiet
    /// periods, verification deadlines) and the alert bridge (webhooks).
    public static let standardServices: [any BotServiceMaker] = [BotTimers()]

    /// Prepares the runner (its state folder and audit log); nothing connects until
    /// ``run()``.
    ///
    /// - Parameter services: makers of one more service per bot (the timers, the alert bridge).
    public init(
        configuration: RunnerConfiguration, transport: any HTTPTransport = IMClient.sharedTransport,
        logger: Logger = Logger(label: "runner"), services: [any BotServiceMaker] = BotRunner.standardServices
    ) throws {
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        self.makers = services
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        if case .server(let settings) = configuration.journal {
            leaseHolder = settings.runnerID + "/" + suffix
        } else {
            leaseHolder = suffix
        }
        let metrics = RunnerMetrics()
        self.metrics = metrics
        health = RunnerHealth(metrics: metrics)
        try LocalFiles.makePrivateFolder(configuration.stateDirectory)
        audit = try AuditLog(path: configuration.stateDirectory + "/audit.log", metrics: metrics, logger: logger)
    }

    /// The bots running now, by name (with journals on the server, those this runner
    /// runs or tries to take: `LeasedBot`).
    public var botNames: [String] { running.withLock { $0.keys.sorted() } }

    /// The bots running now (or, with journals on the server, tried for), by name.
    var slotsByName: [String: any BotSlot] { running.withLock { $0 } }

    /// Whether a reload is being applied now.
    var isReloading: Bool { reloadingNow.load(ordering: .relaxed) }

    /// The `/healthz` answer: ``health`` over the bots running now and, with journals on
    /// the server, who runs each of them.
    var healthReport: Data {
        let slots = running.withLock { $0 }
        let names = slots.keys.sorted()
        guard case .server = configuration.journal else { return health.report(bots: names) }
        let leases = names.compactMap { bot in slots[bot]?.holding.map { RunnerHealth.Lease(bot: bot, $0) } }
        return health.report(bots: names, leases: (leaseHolder, leases))
    }

    /// The listener's bound port (useful when configured as 0).
    public var port: Int? { listenerPort.withLock { $0 } }

    /// Loads the bots, starts the good ones and the listener, and runs until cancelled;
    /// then stops every bot gracefully and the listener after them. A bot file with a
    /// problem (or a failing example) is reported and its bot left out; the start fails
    /// when no bot is left, or, when `strict`, at any problem.
    public func run() async throws {
        let catalog = await BotCatalog.read(folder: configuration.botsDirectory,
                                            environment: configuration.environment).runningExamples()
        if configuration.strict, !catalog.problems.isEmpty {
            throw RunnerError(catalog.problems.joined(separator: "\n"))
        }
        let definitions = catalog.bots.filter { definition in
            guard case .matrix = definition.platform, case .server = configuration.journal else { return true }
            logger.error("bot \(definition.name) cannot start: \(Self.matrixNotRunYet(definition))")
            return false
        }
        guard !definitions.isEmpty else {
            if !catalog.problems.isEmpty || definitions.count < catalog.bots.count {
                let left = catalog.bots.filter { $0.platform != .switchboard }.map(Self.matrixNotRunYet)
                throw RunnerError("no bot can start:\n" + (catalog.problems + left).joined(separator: "\n"))
            }
            throw RunnerError("no bots in \(configuration.botsDirectory): add a bot file (*.yaml)")
        }
        noteProblems(of: catalog, running: [:], reload: false)
        routes.declare(Self.webhookPaths(of: definitions))
        let shared = Shared(http: HTTPActionClient(allow: configuration.httpAllow, proxy: configuration.httpProxy,
                                                      time: configuration.time),
                            writer: JournalWriter(time: configuration.time))
        shared.groups.note(definitions)
        var bots: [any BotSlot] = []
        do {
            for definition in definitions { bots.append(try await makeBot(definition, shared)) }
        } catch {
            for bot in bots { await bot.discard() }
            await shared.http.shutdown()
            throw error
        }
        let listener: HTTPServer?
        do {
            listener = try startListener()
        } catch {
            for bot in bots { await bot.discard() }
            await shared.http.shutdown()
            throw error
        }
        logger.info("runner started \(bots.count) bot(s): \(bots.map(\.bot).joined(separator: ", "))",
                    [("server", configuration.serverURL)])
        reloads.open()
        var handles: [String: RunningBot] = [:]
        for bot in bots { start(bot, handles: &handles) }
        await withDiscardingTaskGroup { group in
            group.addTask { try? await shared.writer.run() }
            if configuration.watchInterval > 0 {
                let watcher = BotFilesWatcher(directory: configuration.botsDirectory,
                                              interval: .seconds(clamping: configuration.watchInterval),
                                              time: configuration.time)
                group.addTask { [self] in
                    await watcher.run {
                        logger.info("bot files changed; reloading")
                        requestReload()
                    }
                }
            }
            // Ends when this task is cancelled: the runner stops.
            while let requests = await reloads.next() {
                reloadingNow.store(true, ordering: .relaxed)
                let problems = await reload(handles: &handles, shared)
                reloadingNow.store(false, ordering: .relaxed)
                for request in requests { request.reply?(problems) }
            }
            reloads.close()
            // Every bot stops (each writes its journal), then the writer and the watcher.
            for handle in handles.values { handle.task.cancel() }
            for handle in handles.values { await handle.task.value }
            group.cancelAll()
        }
        await listener?.shutdown()
        await shared.http.shutdown()
        logger.info("runner stopped")
    }

    /// Asks the running runner to re-read the bot files (SIGHUP, a changed file).
    public func requestReload() {
        reloads.submit(ReloadQueue.Request(reply: nil))
    }

    /// Opens the audit log's path again (SIGHUP, after logrotate renamed the file).
    public func reopenAuditLog() {
        audit.reopen()
    }

    /// Re-reads the bot files now (the runner must be running). Returns the errors that
    /// kept old rules in place (empty when everything was applied).
    @discardableResult
    public func reload() async -> [String] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            reloads.submit(ReloadQueue.Request { continuation.resume(returning: $0) })
        }
    }

    // MARK: Bots

    /// What the bots of one run share: the `http` actions' client, the journal writer,
    /// and the groups several of them join.
    struct Shared: Sendable {
        let http: HTTPActionClient
        let writer: JournalWriter
        let groups = SharedGroups()
    }

    /// A running bot. Each bot runs in a task of its own, so that a reload can stop one by
    /// cancelling it; the runner cancels and awaits every one before ``run()`` returns.
    struct RunningBot {
        let bot: any BotSlot
        let task: Task<Void, Never>
    }

    /// The bot of `definition`: its supervisor over its state folder (taking the folder's
    /// lock), or, with journals on the server, a `LeasedBot` that runs one while this
    /// runner holds the bot's lease.
    func makeBot(_ definition: BotDefinition, _ shared: Shared) async throws(RunnerError) -> any BotSlot {
        let reporter = BotReporter(bot: definition.name, metrics: metrics, audit: audit, logger: logger,
                                   time: configuration.time)
        let bot = definition.name
        if case .matrix(let account) = definition.platform {
            guard case .folder = configuration.journal else { throw RunnerError(Self.matrixNotRunYet(definition)) }
            let secret: MatrixSecret
            do {
                secret = try MatrixSecret.read(account.credential, environment: configuration.environment)
            } catch {
                throw RunnerError("bot '\(bot)' (\(definition.file)): \(error.message)")
            }
            let store = try FileJournalStore(folder: configuration.stateDirectory + "/" + bot, bot: bot)
            return try await makeSupervisor(definition, shared, reporter, store: store, password: "",
                                            device: "runner:\(bot)", matrixSecret: secret)
        }
        switch configuration.journal {
        case .folder:
            let store = try FileJournalStore(folder: configuration.stateDirectory + "/" + bot, bot: bot)
            let password: String
            do {
                password = try BotPassword.resolve(for: definition, folder: store.folder) { reporter.logger.notice($0) }
            } catch {
                await store.release()
                throw error
            }
            return try await makeSupervisor(definition, shared, reporter, store: store, password: password,
                                            device: "runner:\(bot)")
        case .server(let settings):
            guard !definition.account.password.isEmpty else {
                let variable = definition.account.passwordVariable.map { "set \($0)" } ?? "set account.password"
                throw RunnerError(
                    "bot '\(bot)' has no password (\(definition.file): account.password is empty): with "
                        + "runner.journal: server every runner logs the bot in, so they need the same password: "
                        + "\(variable)")
            }
            let device = LeasedBot.device("runner:\(bot)", runner: settings.runnerID)
            return LeasedBot(definition: definition, holder: leaseHolder, settings: settings,
                             configuration: configuration, transport: transport, logger: reporter.logger,
                             metrics: metrics)
            { [self] definition, store throws(RunnerError) in
                try await makeSupervisor(definition, shared, reporter, store: store,
                                         password: definition.account.password, device: device)
            }
        }
    }

    /// Why a Matrix bot is left out: its journal cannot be kept on a Switchboard server
    /// (`runner.journal: server`) yet.
    static func matrixNotRunYet(_ definition: BotDefinition) -> String {
        "bot '\(definition.name)' (\(definition.file)) names platform matrix: Matrix bots keep their journal in the "
            + "runner's state folder; with runner.journal: server they are not run yet (docs/matrix.md)"
    }

    private func makeSupervisor(
        _ definition: BotDefinition, _ shared: Shared, _ reporter: BotReporter, store: any JournalStore,
        password: String, device: String, matrixSecret: MatrixSecret? = nil
    ) async throws(RunnerError) -> BotSupervisor {
        try await BotSupervisor(
            definition: definition, configuration: configuration, transport: transport, http: shared.http,
            writer: shared.writer, reporter: reporter, routes: routes, groups: shared.groups, makers: makers,
            store: store, password: password, device: device, matrixSecret: matrixSecret)
    }

    func start(_ bot: any BotSlot, handles: inout [String: RunningBot]) {
        running.withLock { $0[bot.bot] = bot }
        let task = Task { [self] in
            do {
                try await bot.run()
            } catch {
                logger.error("bot \(bot.bot) failed: \(error)")
            }
            running.withLock { _ = $0.removeValue(forKey: bot.bot) }
        }
        handles[bot.bot] = RunningBot(bot: bot, task: task)
    }

    func stop(_ name: String, handles: inout [String: RunningBot]) async {
        guard let handle = handles.removeValue(forKey: name) else { return }
        handle.task.cancel()
        await handle.task.value
        running.withLock { $0[name] = nil }
    }

    /// Records and logs the files of `catalog` that have problems; `running` are the bots
    /// that run now, by file, which such a file leaves on their old rules.
    func noteProblems(of catalog: BotCatalog, running: [String: BotDefinition], reload: Bool) {
        let now = Timestamp(milliseconds: configuration.time.wallMilliseconds)
        for file in catalog.files where file.bot == nil {
            let old = running[file.path]
            health.failed(file, errors: file.problems, running: old, reload: reload, at: now)
            let what = old.map { "bot \($0.name) keeps its old rules (version \($0.version))" }
                ?? "bot \(file.label) does not run"
            logger.error("\(file.path) has \(file.problems.count) problem(s); \(what):\n"
                         + file.problems.joined(separator: "\n"))
        }
        for file in catalog.files where file.bot != nil { health.fine(file) }
        health.keep(only: Set(catalog.files.map(\.path)))
    }

    /// The webhook paths of `definitions`, with their body limits.
    static func webhookPaths(of definitions: [BotDefinition]) -> [String: Int] {
        Dictionary(definitions.flatMap { definition in
            definition.webhooks.flatMap { endpoint in
                // A Slack route also takes its path followed by the secret.
                [(endpoint.path, endpoint.maxBodyBytes)]
                    + (endpoint.route.format.takesSecretInPath ? [(endpoint.path + "/*", endpoint.maxBodyBytes)] : [])
            }
        }) { first, _ in first }
    }

    // MARK: Listener

    private func startListener() throws(RunnerError) -> HTTPServer? {
        guard let address = configuration.listen else { return nil }
        var http = HTTPServerConfiguration()
        http.host = address.host
        http.port = address.port
        http.connectionLimit = 1024
        http.maxBodyBytes = 1 << 20
        // The HTTP library's messages are the runner's log lines (escaped as every line is).
        let httpLogger = logger.child("http")
        http.errorLog = { httpLogger.warning($0) }
        let server = HTTPServer(configuration: http, responder: RunnerResponder(runner: self))
        do {
            try server.start()
        } catch {
            throw RunnerError("the runner's listener cannot start: \((error as? HTTPServerError)?.message ?? "\(error)")")
        }
        listenerPort.withLock { $0 = server.port }
        logger.info("runner listening on http://\(address.host):\(server.port) (/metrics, /healthz, /console, bots' webhooks)")
        return server
    }
}
