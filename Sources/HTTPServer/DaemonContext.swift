import CMicroHTTPD
import Foundation
import Lifecycle
import Synchronization

/// What MHD's callbacks are given as their closure pointer: the state one server's
/// callbacks, request tasks and `HTTPServer` share.
final class DaemonContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let counters = ServerCounters()
    let connections: ConnectionRegistry
    let watcher: HangupWatcher
    /// Requests in flight per client behind a trusted proxy.
    let forwarded: ForwardedRequests
    /// Set once `shutdown` begins: new requests get 503, new parks are cancelled.
    let shuttingDown = Atomic<Bool>(false)
    /// Notified when a gauge `shutdown` waits on reaches zero.
    let gaugeReachedZero = ConditionSignal()

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, time: any TimeSource) {
        self.configuration = configuration
        self.responder = responder
        self.connections = ConnectionRegistry(configuration: configuration, time: time, counters: counters)
        self.forwarded = ForwardedRequests(
            trustedProxies: configuration.trustedProxies, limit: configuration.connectionsPerAddress)
        self.watcher = HangupWatcher(counters: counters, log: configuration.errorLog)
    }

    func log(_ message: String) { configuration.errorLog(message) }

    /// Binds, and starts MHD, the hang-up watcher and the header reaper.
    func start() throws(HTTPServerError) -> MHDDaemon {
        let connectionLimit = fittingConnectionLimit()
        let listener = try ListenSocket.open(
            host: configuration.host, port: configuration.port)
        do {
            try watcher.start()
        } catch {
            close(listener.fd)
            throw error
        }
        let daemon: MHDDaemon
        do {
            daemon = try MHDDaemon(core: self, listener: listener, connectionLimit: connectionLimit)
        } catch {
            watcher.stop()
            throw error
        }
        connections.startReaper()
        return daemon
    }

    /// Graceful stop; see `HTTPServer.shutdown()`.
    func shutdown(_ daemon: MHDDaemon) async {
        // Sequentially consistent, paired with `dispatch`: either a request sees the
        // flag and answers 503, or this sees it counted in flight and waits for it.
        // New connections are still accepted until MHD stops, and answered 503 (see
        // `MHDDaemon.stop`).
        shuttingDown.store(true, ordering: .sequentiallyConsistent)
        // Parked long-polls are answered at once; handlers still working get the grace.
        watcher.cancelAll()

        let counters = self.counters
        let drained = await gaugeReachedZero.wait(
            until: { counters.inFlightRequests.load(ordering: .sequentiallyConsistent) == 0 },
            timeout: .seconds(max(configuration.shutdownGrace, 0)))
        if !drained {
            log("shutdown: \(counters.inFlightRequests.load(ordering: .relaxed)) requests "
                + "still unanswered after \(configuration.shutdownGrace) s; closing them")
        }

        // MHD must not be stopped with suspended connections (it aborts the process): take
        // over the requests whose responder is still at work, and answer them 503
        // ourselves. Again while any stays suspended: a request whose headers came just
        // before the flag was set may suspend only after a pass.
        var resumed = false
        for _ in 0..<10 where !resumed {
            for connection in connections.abandonUnansweredRequests() {
                MHD_resume_connection(connection.handle)
            }
            resumed = await gaugeReachedZero.wait(
                until: { counters.suspendedRequests.load(ordering: .sequentiallyConsistent) == 0 },
                timeout: .seconds(1))
        }
        if !resumed { log("shutdown: suspended connections did not resume; stopping anyway") }
        // Their 503s are queued now, not yet written: stopping MHD at once could close a
        // connection before its answer leaves, and the client would see only a close.
        let answered = await gaugeReachedZero.wait(
            until: { counters.unsentShutdownAnswers.load(ordering: .sequentiallyConsistent) == 0 },
            timeout: .seconds(5))
        if !answered { log("shutdown: 503 answers not all written; stopping anyway") }

        // The reaper stops first: once MHD has closed the connections their descriptors
        // may be reused at once (another server's listening socket, in a test run), and a
        // late deadline must not shut one down.
        connections.stopReaper()
        await daemon.stop()
        watcher.stop()
    }

    /// Lifts the soft limit on open files to the hard one (each connection is a file, and
    /// the usual soft limit of 1,024 is far below `connectionLimit`), and returns the
    /// connection limit that fits: the configured one, or less when the hard limit is
    /// lower, with a notice saying so.
    func fittingConnectionLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_RESOURCE, &limit) == 0 else { return configuration.connectionLimit }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = min(limit.rlim_max, 1 << 20)
            if setrlimit(RLIMIT_NOFILE_RESOURCE, &limit) != 0 {
                log("cannot raise the open-file limit: \(String(cString: strerror(errno)))")
                _ = getrlimit(RLIMIT_NOFILE_RESOURCE, &limit)
            }
        }
        // Keep some files for the database, logs and the listening socket.
        let reserve = 64
        let fitting = Int(min(limit.rlim_cur, rlim_t(Int.max))) - reserve
        guard fitting < configuration.connectionLimit else { return configuration.connectionLimit }
        log("connection limit lowered from \(configuration.connectionLimit) to \(max(fitting, 16)) to fit the "
            + "open-file limit of \(limit.rlim_cur); raise it (ulimit -n) to allow more")
        return max(fitting, 16)
    }
}

private let RLIMIT_NOFILE_RESOURCE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
