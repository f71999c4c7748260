import Synchronization

/// An HTTP/1.1 server: libmicrohttpd's threads read requests, a task per request asks the
/// responder, and long-polls park cheaply (see `Request.parked`).
///
/// A started server runs until `shutdown()`, or until `run()`'s task is cancelled;
/// releasing a running server shuts it down in the background.
public final class HTTPServer: Sendable {
    private enum State {
        case idle
        case running(MHDDaemon)
        case stopping(Task<Void, Never>)
        case stopped
    }

    private let core: ServerCore
    private let state = Mutex(State.idle)
    private let boundPort = Atomic<Int>(0)
    /// Continuations of `run()` calls, finished when the server stops.
    private let runners = Mutex<[AsyncStream<Never>.Continuation]>([])

    /// Creates a server; nothing is bound until `start()` or `run()`.
    public init(configuration: HTTPServerConfiguration, responder: some HTTPResponder) {
        core = ServerCore(configuration: configuration, responder: responder)
    }

    deinit {
        if case .running(let daemon) = state.withLock({ $0 }) {
            let core = self.core
            Task { await core.shutdown(daemon) }
        }
    }

    /// Binds and starts serving; throws HTTPServerError with a clear message naming
    /// host:port.
    ///
    /// Does nothing if the server is running already; a server that was shut down cannot
    /// start again (make a new one).
    public func start() throws {
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            switch state {
            case .running:
                return
            case .stopping, .stopped:
                let configuration = core.configuration
                throw HTTPServerError(
                    code: .startFailed,
                    message: "cannot start the server for \(configuration.host):"
                        + "\(configuration.port) again after shutdown; create a new one")
            case .idle:
                let daemon = try core.start()
                boundPort.store(daemon.port, ordering: .relaxed)
                state = .running(daemon)
            }
        }
    }

    /// The bound port (useful with port 0).
    ///
    /// 0 before `start()`; keeps its value after shutdown.
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// Counters and gauges for /metrics: openConnections, parkedRequests, inFlightRequests,
    /// requestsTotal, rejectedBodyTooLarge, headerTimeouts, clientHangups (all Int,
    /// documented).
    public var stats: HTTPServerStats { core.counters.snapshot }

    /// Graceful stop: stop accepting; cancel every parked wait (so its handler answers at
    /// once); wait up to configuration.shutdownGrace for in-flight handlers to finish and
    /// their responses to be sent; then stop the daemon. Idempotent.
    ///
    /// Requests that arrive meanwhile on open connections get 503. When it returns the
    /// port is free. Concurrent calls all return once the server has stopped.
    public func shutdown() async {
        let stopping: Task<Void, Never>? = state.withLock { state in
            switch state {
            case .idle:
                state = .stopped
                return nil
            case .running(let daemon):
                let core = self.core
                let task = Task { await core.shutdown(daemon) }
                state = .stopping(task)
                return task
            case .stopping(let task):
                return task
            case .stopped:
                return nil
            }
        }
        await stopping?.value
        state.withLock { $0 = .stopped }
        for runner in runners.withLock({ $0 }) { runner.finish() }
    }

    /// Service style: start() if not started, suspend until the calling task is
    /// cancelled, then shutdown().
    ///
    /// Also returns when the server is shut down from elsewhere.
    public func run() async throws {
        try start()
        let (stopped, continuation) = AsyncStream<Never>.makeStream()
        let alreadyStopped = runners.withLock { runners in
            runners.append(continuation)
            if case .stopped = state.withLock({ $0 }) { return true }
            return false
        }
        if !alreadyStopped {
            for await _ in stopped {}
        }
        await shutdown()
    }
}
