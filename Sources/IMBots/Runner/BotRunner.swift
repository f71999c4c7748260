import Foundation
import HTTPServer
import IMClient
import IMProtocol
import Logging
import Synchronization

/// Many bots in one process: loads the bot files, runs a supervisor per bot, reloads
/// when files change (or on `reload()`, e.g. from SIGHUP), and serves `/metrics` and
/// `/healthz` on its listener.
///
/// A reload checks every file and runs its examples first; only a bot whose file passes
/// both gets the new rules, swapped atomically. A file that fails keeps its old rules
/// running, and every error is logged with file:line:column.
public final class BotRunner: Sendable {
    public let configuration: RunnerConfiguration
    public let metrics = RunnerMetrics()
    private let transport: any HTTPTransport
    private let logger: Logger
    private let audit: AuditLog
    private let bots = Mutex<[String: RunningBot]>([:])
    private let fingerprints = Mutex<[String: String]>([:])

    private struct RunningBot: Sendable {
        var supervisor: BotSupervisor
        var task: Task<Void, Never>
        var definition: BotDefinition
    }

    /// Checks the bot files and prepares; nothing connects until `run()`. Throws every
    /// error of every file (none runs when any is broken at start).
    public init(
        configuration: RunnerConfiguration, transport: any HTTPTransport = IMClient.sharedTransport,
        logger: Logger = Logger(label: "runner")
    ) throws {
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        self.audit = try AuditLog(path: configuration.stateDirectory + "/audit.log")
    }

    /// The bots running now, by name.
    public var botNames: [String] { bots.withLock { $0.keys.sorted() } }

    /// Loads the bots, starts them, serves the listener, watches the files, and runs until
    /// the calling task is cancelled; then stops every bot gracefully.
    public func run() async throws {
        let (definitions, errors) = BotLoader.loadDirectory(configuration.botsDirectory, environment: configuration.environment)
        guard errors.isEmpty else { throw RunnerError(errors.errors.map(\.description).joined(separator: "\n")) }
        guard !definitions.isEmpty else {
            throw RunnerError("no bots in \(configuration.botsDirectory): add a bot file (*.yaml)")
        }
        let failures = await Self.failedExamples(definitions)
        guard failures.isEmpty else { throw RunnerError(failures.joined(separator: "\n")) }
        for definition in definitions { try start(definition) }
        fingerprints.withLock { $0 = Self.fingerprint(configuration.botsDirectory) }

        let listener = try startListener()
        let watcher = Task { [self] in await watch() }
        logger.info("runner started \(definitions.count) bot(s): \(definitions.map(\.name).joined(separator: ", "))",
                    [("server", configuration.serverURL)])
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        watcher.cancel()
        await stopAll()
        await listener?.shutdown()
        logger.info("runner stopped")
    }

    private func start(_ definition: BotDefinition) throws {
        let supervisor = try BotSupervisor(
            definition: definition, configuration: configuration, transport: transport, metrics: metrics,
            audit: audit, logger: logger)
        let task = Task { await supervisor.run() }
        bots.withLock { $0[definition.name] = RunningBot(supervisor: supervisor, task: task, definition: definition) }
    }

    private func stop(_ name: String) async {
        guard let bot = bots.withLock({ $0.removeValue(forKey: name) }) else { return }
        bot.task.cancel()
        await bot.task.value
    }

    private func stopAll() async {
        for name in botNames { await stop(name) }
    }

    // MARK: Reload

    /// Re-reads the bot files now. Returns the errors that kept old rules in place (empty
    /// when everything was applied).
    @discardableResult
    public func reload() async -> [String] {
        let (definitions, loadErrors) = BotLoader.loadDirectory(configuration.botsDirectory, environment: configuration.environment)
        var problems = loadErrors.errors.map(\.description)
        var good: [BotDefinition] = []
        for definition in definitions {
            let failures = await Self.failedExamples([definition])
            if failures.isEmpty { good.append(definition) } else { problems += failures }
        }
        let running = bots.withLock { $0 }
        for definition in good {
            if let current = running[definition.name] {
                if current.definition.version == definition.version { continue }
                if current.definition.account.username == definition.account.username {
                    await current.supervisor.replace(definition)
                    bots.withLock { $0[definition.name]?.definition = definition }
                    logger.notice("bot \(definition.name): new rules applied", [("version", definition.version)])
                } else {
                    await stop(definition.name)
                    await startLogging(definition)
                }
            } else {
                await startLogging(definition)
            }
        }
        // Bots whose file is gone (not merely broken) stop.
        let present = Set(definitions.map(\.name))
        for (name, bot) in running where !present.contains(name) && !FileManager.default.fileExists(atPath: bot.definition.file) {
            logger.notice("bot \(name): its file is gone; stopping it")
            await stop(name)
        }
        for problem in problems { logger.error("reload: \(problem) (old rules kept)") }
        fingerprints.withLock { $0 = Self.fingerprint(configuration.botsDirectory) }
        return problems
    }

    private func startLogging(_ definition: BotDefinition) async {
        do {
            try start(definition)
            logger.notice("bot \(definition.name): started")
        } catch {
            logger.error("bot \(definition.name): cannot start: \(error)")
        }
    }

    /// Every failing example of these bots, as `file:line:column: …` lines.
    static func failedExamples(_ definitions: [BotDefinition]) async -> [String] {
        var failures: [String] = []
        for definition in definitions {
            for result in await ExampleRunner.run(bot: definition) where !result.passed {
                failures.append(result.description)
            }
        }
        return failures
    }

    /// Polls the bots folder for changed files and reloads when something changed.
    private func watch() async {
        let interval = configuration.watchInterval
        guard interval > 0 else { return }
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
            let current = Self.fingerprint(configuration.botsDirectory)
            if current != fingerprints.withLock({ $0 }) {
                logger.info("bot files changed; reloading")
                await reload()
            }
        }
    }

    /// Name → size and modification time of every bot file.
    static func fingerprint(_ directory: String) -> [String: String] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [:] }
        var result: [String: String] = [:]
        for name in names where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let attributes = try? manager.attributesOfItem(atPath: directory + "/" + name)
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? -1
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            result[name] = "\(size)@\(modified)"
        }
        return result
    }

    // MARK: Listener

    private func startListener() throws -> HTTPServer? {
        guard let address = configuration.listen else { return nil }
        var http = HTTPServerConfiguration()
        http.host = address.host
        http.port = address.port
        http.connectionLimit = 1024
        http.maxBodyBytes = 1 << 20
        let server = HTTPServer(configuration: http, responder: RunnerResponder(runner: self))
        do {
            try server.start()
        } catch let error as HTTPServerError {
            throw RunnerError("the runner's listener cannot start: \(error.message)")
        }
        listenerPort.withLock { $0 = server.port }
        logger.info("runner listening on http://\(address.host):\(server.port) (/metrics, /healthz)")
        return server
    }

    private let listenerPort = Mutex<Int?>(nil)

    /// The listener's bound port (useful when configured as 0).
    public var port: Int? { listenerPort.withLock { $0 } }
}

/// The runner's own HTTP endpoints.
struct RunnerResponder: HTTPResponder {
    let runner: BotRunner

    func respond(to request: Request) async -> Response {
        switch (request.method, request.path) {
        case (.get, "/healthz"):
            let names = runner.botNames.map { "\"\($0)\"" }.joined(separator: ",")
            return Response(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"{"status":"ok","bots":[\#(names)]}"#.utf8))
        case (.get, "/metrics"):
            return Response(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Data(runner.metrics.render().utf8))
        default:
            return errorResponse(status: 404, message: "no endpoint \(request.path)")
        }
    }

    func errorResponse(status: Int, message: String) -> Response {
        let code = ErrorCode.allCases.first { $0.httpStatus == status } ?? .invalidRequest
        let body = (try? WireJSON.encoder().encode(ErrorEnvelope(error: APIError(code, message)))) ?? Data()
        return Response(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}
