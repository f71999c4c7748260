import Lifecycle
import Synchronization

/// An HTTP/1.1 server: libmicrohttpd's threads read requests, a task per request asks the
/// responder, and long-polls park cheaply (see `DeferredResponse`).
///
/// A `Service`: `run()` serves until its task is cancelled, then drains. `start()` binds
/// ahead of that, so a caller learns the port (asked as 0) before running it. A started
/// server also stops with `shutdown()`; releasing a running one shuts it down in the
/// background.
public final class HTTPServer: Service {
    private enum State {
        case idle
        case running(MHDDaemon)
        case stopping(Task<Void, Never>)
        case stopped
    }

    public let name = "http"
    private let context: DaemonContext
    private let state = Mutex(State.idle)
    private let boundPort = Atomic<Int>(0)
    /// Opened once the server has stopped, however that came about.
    private let stopped = Latch()

    /// Creates a server; nothing is bound until `start()` or `run()`.
    ///
    /// - Parameter time: the clock request deadlines (headers, body, response) are measured on.
    public init(configuration: HTTPServerConfiguration, responder: some HTTPResponder,
                time: any TimeSource = SystemTime()) {
        context = DaemonContext(configuration: configuration, responder: responder, time: time)
    }

    deinit {
        if case .running(let daemon) = state.withLock({ $0 }) {
            // Last resort for a server nobody stopped: it must not keep the port.
            let context = self.context
            Task { await context.shutdown(daemon) }
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
                let configuration = context.configuration
                throw HTTPServerError(
                    code: .startFailed,
                    message: "cannot start the server for \(configuration.host):"
                        + "\(configuration.port) again after shutdown; create a new one")
            case .idle:
                let daemon = try context.start()
                boundPort.store(daemon.port, ordering: .relaxed)
                state = .running(daemon)
            }
        }
    }

    /// The bound port (useful with port 0).
    ///
    /// 0 before `start()`; keeps its value after shutdown.
    public var port: Int { boundPort.load(ordering: .relaxed) }

    /// Counters and gauges for /metrics (see `HTTPServerStats`).
    public var stats: HTTPServerStats { context.counters.snapshot }

    /// Graceful stop: stop accepting; cancel every deferred answer (so its handler
    /// answers at once); wait up to configuration.shutdownGrace for in-flight handlers to
    /// finish and their responses to be sent; then stop the daemon. Idempotent.
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
                // A task of its own, awaited below and by every concurrent caller: the
                // drain must finish even when the first caller is cancelled.
                let context = self.context
                let task = Task { await context.shutdown(daemon) }
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
        stopped.open()
    }

    /// Starts if not started, serves until the calling task is cancelled (or the server
    /// is shut down elsewhere), then shuts down gracefully.
    public func run() async throws {
        try start()
        await stopped.wait()
        await shutdown()
    }
}
