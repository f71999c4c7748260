import Foundation
import HTTPServer
import IMProtocol
import IMStore
import Lifecycle
import Logging
import SwitchboardCrypto
import Synchronization

/// Why the server could not start: a message a person can act on, and the exit code
/// the command line uses.
public struct ServerStartError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The IM server: storage, services and the HTTP listener, run as one `Service`.
///
/// `start()` binds (so a caller learns the port before running it); `run()` serves and
/// does the periodic work (poll expiry, pruning) on the injected `TimeSource` until its
/// task is cancelled, then drains: parked polls are answered, requests in flight finish,
/// the database closes.
public final class IMServerApp: Service {
    public let name = "switchboard server"
    public let configuration: ServerConfiguration
    let core: ServerServices
    let http: HTTPServer
    let store: OpenedStore
    let logger: Logger
    let time: any TimeSource
    /// Opened by `shutdown()`, so a `run()` in progress stops too.
    private let stopRequested = Latch()
    private let stopping = Mutex<Task<Void, Never>?>(nil)

    /// Creates `path` and its missing parents (like `mkdir -p`); what went wrong, naming
    /// the folder and the system's reason, or nil.
    static func createDirectories(_ path: String) -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            return isFolder.boolValue ? nil : "\(path) exists and is not a folder"
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, let problem = createDirectories(parent) { return problem }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            return "\(path): \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Opens the storage (the data folder's SQLite database, or PostgreSQL, migrated on
    /// first use); nothing listens until `start()`.
    ///
    /// - Parameter time: every clock the server reads (poll timeouts, rate limits, login
    ///   lock-outs, token expiry, timestamps); tests pass a `ManualTime`.
    public init(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "server"),
        time: any TimeSource = SystemTime()
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        self.time = time
        let host = configuration.http.host
        if configuration.metricsToken == nil, !SystemRoutes.isLoopback(host) {
            throw ServerStartError(
                message: "set server.metrics_token: the server listens on \(host), not a loopback address, "
                    + "and /metrics would be open to anyone who can reach it")
        }
        let hasher = configuration.passwordHasher
        if hasher.isBelowOWASPMinimum {
            logger.warning(
                "password hashing is below OWASP's minimum for Argon2id (19 MiB, 2 iterations): "
                    + "memory_kib \(hasher.memoryKiB), iterations \(hasher.iterations); stolen hashes are cheap to guess")
        }
        let store = try await OpenedStore.open(configuration, time: time) { logger.notice($0) }
        self.store = store
        for warning in store.postgres?.warnings ?? [] { logger.warning(warning) }
        do {
            core = try ServerServices(
                configuration: configuration, store: store.storage, logger: logger, time: time, cluster: store.postgres)
        } catch {
            await store.close()
            throw error
        }
        // The HTTP library's messages go where the server's own lines go (its log file,
        // reopened on SIGHUP, when it has one).
        var listener = configuration.http
        let httpLogger = logger.child("http")
        listener.errorLog = { httpLogger.warning($0) }
        http = HTTPServer(configuration: listener, responder: APIResponder(core: core), time: time)
        core.addMetrics { [http] in HTTPMetrics.samples(http.stats) }
        core.addMetrics { [store] in store.samples() }
        core.addMetrics { [core] in
            [
                .counter("switchboard_password_checks_total", "Password checks run (logins, password changes).", core.hashing.checks.load(ordering: .relaxed)),
                .counter("switchboard_password_hashing_refused_total", "Password checks refused with 503 because the hashing queue was full.", core.hashing.refused.load(ordering: .relaxed)),
                .gauge("switchboard_password_hashing_queued", "Password hashes waiting or running now.", core.hashing.queued),
            ]
        }
    }

    /// Binds the listener; does nothing when it is bound already.
    public func start() async throws {
        guard http.port == 0 else { return }
        do {
            try http.start()
        } catch let error as HTTPServerError {
            throw ServerStartError(message: error.message)
        }
        logger.info(
            "switchboard server listening on http://\(configuration.http.host):\(http.port)",
            [("store", store.description)])
    }

    /// The bound port (useful when configured as 0).
    public var port: Int { http.port }

    /// A credential for the `/v1/admin` endpoints of this server, valid while this process
    /// runs: random at every start, kept only in memory, never written anywhere. It is
    /// for the program that embeds the server (`switchboard up` hands it to its bot
    /// runner to make the bots' accounts); it names no account and opens nothing else.
    public func localAdministratorToken() async throws -> String {
        core.localAdministratorToken
    }

    /// Event polls parked now (also `switchboard_parked_polls` in `/metrics`).
    public var parkedPolls: Int { core.hub.parkedCount }

    /// Starts if needed, serves until the calling task is cancelled (or `shutdown()` is
    /// called elsewhere), then shuts down gracefully.
    public func run() async throws {
        try await start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.maintain() }
            group.addTask { await self.stopRequested.wait() }
            group.addTask { [core] in
                await core.telegramWebhooks.run(core: core)
                // Ends only when cancelled: the group's first finished task stays one of the two above.
                if !Task.isCancelled { await Latch().wait() }
            }
            // With PostgreSQL: hearing the other nodes' commits, claims and revocations.
            var cluster: [any Service] = []
            if let postgres = store.postgres, let link = core.cluster { cluster = [postgres.cluster, link] }
            for service in cluster {
                group.addTask { [logger] in
                    do {
                        try await service.run()
                    } catch {
                        logger.error("\(service.name) stopped: \(error)")
                    }
                    // Ends only when cancelled (or broken): waiting here keeps the group's
                    // first finished task one of the two above.
                    await Latch().wait()
                }
            }
            await group.next()
            group.cancelAll()
        }
        await shutdown()
    }

    /// How long the periodic work sleeps between its passes.
    static let maintenancePeriod: Duration = .milliseconds(250)

    /// Periodic work on the server's time source until cancelled: expiring parked polls
    /// a few times a second, recording when logins were used once a minute, and once an
    /// hour dropping old events, logins and counters.
    private func maintain() async {
        var nextPrune = time.elapsed
        var nextFlush = time.elapsed + .seconds(60)
        while !Task.isCancelled {
            core.hub.expire()
            if time.elapsed >= nextFlush {
                nextFlush = time.elapsed + .seconds(60)
                await recordLoginUse()
            }
            if time.elapsed >= nextPrune {
                nextPrune = time.elapsed + .seconds(3600)
                await prune()
            }
            do {
                try await time.sleep(for: Self.maintenancePeriod)
            } catch {
                return
            }
        }
    }

    /// Writes when logins were last used (batched: one write a minute, not one per request).
    private func recordLoginUse() async {
        let uses = core.authenticator.takeUsage().mapValues { Timestamp(milliseconds: $0) }
        do {
            try await core.store.recordTokenUse(uses)
        } catch {
            logger.warning("recording login use failed: \(error)")
        }
    }

    private func prune() async {
        let cutoff = core.now().adding(seconds: -configuration.eventRetention)
        do {
            let events = try await core.store.pruneEvents(before: cutoff)
            let tokens = try await core.store.pruneTokens(before: core.now().adding(seconds: -86400))
            try await store.postgres?.pruneClaims(before: core.now().adding(seconds: -86400))
            if events + tokens > 0 { logger.info("pruned \(events) old events and \(tokens) ended logins") }
        } catch {
            logger.warning("pruning failed: \(error)")
        }
        core.limiter.prune(idleFor: 3600)
        do {
            try await core.loginThrottle.prune()
        } catch {
            logger.warning("pruning login counters failed: \(error)")
        }
    }

    /// Answers parked polls, lets in-flight requests finish, and closes the database.
    /// Idempotent; concurrent callers all return once the server has stopped.
    public func shutdown() async {
        stopRequested.open()
        let task = stopping.withLock { task -> Task<Void, Never> in
            if let task { return task }
            // A task of its own, awaited by every caller: the drain must finish even when
            // the first caller is cancelled.
            let started = Task { [self] in
                logger.info("shutting down: answering parked polls and finishing requests")
                core.hub.stop()
                await http.shutdown()
                await recordLoginUse()
                await store.close()
                logger.info("stopped")
            }
            task = started
            return started
        }
        await task.value
    }
}
