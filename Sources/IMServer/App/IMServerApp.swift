import Foundation
import HTTPServer
import IMProtocol
import IMStore
import Logging
import Synchronization

/// Why the server could not start: a message a person can act on, and the exit code
/// the command line uses.
public struct ServerStartError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A running IM server: storage, services and the HTTP listener, started and stopped as
/// one service.
public final class IMServerApp: Sendable {
    public let configuration: ServerConfiguration
    let core: ServerCore
    let http: HTTPServer
    let store: SQLiteStore
    let logger: Logger
    /// Expires parked polls and prunes old data while the server runs.
    private let maintenance = Mutex<Task<Void, Never>?>(nil)

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

    /// Opens the data folder and storage; nothing listens until `start()`.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "server")) throws {
        self.configuration = configuration
        self.logger = logger
        let directory = configuration.dataDirectory
        if let problem = Self.createDirectories(directory) {
            throw ServerStartError(message: "cannot create the data folder \(directory): \(problem)")
        }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw ServerStartError(message: "the data folder \(directory) is not writable")
        }
        do {
            store = try SQLiteStore(directory: directory, synchronous: configuration.synchronous)
        } catch {
            throw ServerStartError(message: "cannot open the database in \(directory): \(error)")
        }
        core = ServerCore(
            configuration: configuration, store: store, logger: logger, now: { Timestamp.now() },
            monotonic: systemMonotonicClock)
        http = HTTPServer(configuration: configuration.http, responder: APIResponder(core: core))
        core.addGauges { [http] in
            let stats = http.stats
            return [
                ("switchboard_http_open_connections", "Open HTTP connections.", stats.openConnections),
                ("switchboard_http_in_flight_requests", "Requests being handled now.", stats.inFlightRequests),
                ("switchboard_http_rejected_too_large_total", "Requests refused with 413.", stats.rejectedBodyTooLarge),
                ("switchboard_http_header_timeouts_total", "Connections closed for slow headers.", stats.headerTimeouts),
                ("switchboard_http_client_hangups_total", "Parked requests whose client went away.", stats.clientHangups),
            ]
        }
        core.addGauges { [store] in
            let writer = store.writerStats
            return [
                ("switchboard_store_batches_total", "Write batches (one transaction, one commit each).", writer.batches),
                ("switchboard_store_writes_total", "Write jobs committed in those batches.", writer.writes),
                ("switchboard_store_largest_batch", "The most write jobs one batch held.", writer.largestBatch),
                ("switchboard_store_busy_microseconds_total", "Writer time from BEGIN to the end of COMMIT.", writer.busyNanoseconds / 1000),
                ("switchboard_store_commit_microseconds_total", "Writer time in COMMIT (the WAL fsync with durability full).", writer.commitNanoseconds / 1000),
                ("switchboard_store_cpu_microseconds_total", "CPU time the writer thread used for its batches, resuming their callers included.", writer.cpuNanoseconds / 1000),
                ("switchboard_store_background_checkpoints_total", "Checkpoints of the write-ahead log run in the background.", writer.backgroundCheckpoints),
                ("switchboard_store_catch_up_checkpoints_total", "Checkpoints the writer ran itself because the background ones fell behind.", writer.catchUpCheckpoints),
            ]
        }
    }

    /// Binds the listener, grants administration to the configured admins and starts the
    /// periodic work (poll timeouts, pruning).
    public func start() async throws {
        for name in configuration.admins {
            if let record = try await store.user(named: name.lowercased()), !record.isAdmin {
                try await store.setAdmin(record.id, true)
            }
        }
        do {
            try http.start()
        } catch let error as HTTPServerError {
            throw ServerStartError(message: error.message)
        }
        let task = Task { [self] in await maintain() }
        maintenance.withLock { $0 = task }
        logger.info(
            "switchboard server listening on http://\(configuration.http.host):\(http.port)",
            [("data", configuration.dataDirectory)])
    }

    /// The bound port (useful when configured as 0).
    public var port: Int { http.port }

    /// Starts, serves until the calling task is cancelled, then shuts down gracefully.
    public func run() async throws {
        try await start()
        // Sleeping is cancellation-aware: cancelling this task ends the wait at once.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        await shutdown()
    }

    /// Periodic work: expiring parked polls, dropping old events, logins and counters.
    private func maintain() async {
        var lastPrune = -Double.infinity
        while !Task.isCancelled {
            core.hub.expire()
            let now = core.monotonic()
            if now - lastPrune > 3600 {
                lastPrune = now
                await prune()
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    private func prune() async {
        let cutoff = core.now().adding(seconds: -configuration.eventRetention)
        do {
            let events = try await store.pruneEvents(before: cutoff)
            let tokens = try await store.pruneTokens(before: core.now().adding(seconds: -86400))
            if events + tokens > 0 { logger.info("pruned \(events) old events and \(tokens) ended logins") }
        } catch {
            logger.warning("pruning failed: \(error)")
        }
        core.limiter.prune(idleFor: 3600)
        core.loginThrottle.prune()
    }

    /// Answers parked polls, lets in-flight requests finish, and closes the database.
    public func shutdown() async {
        logger.info("shutting down: answering parked polls and finishing requests")
        if let task = maintenance.withLock({ $0 }) {
            task.cancel()
            await task.value
        }
        core.hub.stop()
        await http.shutdown()
        store.close()
        logger.info("stopped")
    }
}
