import Synchronization

/// One connection of a `PostgresPool` and the thread that drives it.
///
/// The connection is opened on first use and checked before every job: one that broke,
/// was left inside a transaction, or heard from the server while idle (its goodbye after
/// `pg_terminate_backend` or a restart) is replaced by a new one first.
final class PoolSlot: @unchecked Sendable {
    // @unchecked: `connection` is touched only by jobs on `thread`, which runs one at a
    // time; the cancel state is behind its Mutex; the rest is immutable or atomic.
    private struct CancelState {
        var handle: PostgresCancel?
        /// The job running on the connection now.
        var running: UInt64?
        /// The latest job whose task was cancelled (a slot runs one job at a time, so one
        /// is enough).
        var cancelled: UInt64?
    }

    let thread: DedicatedThread
    private var connection: PostgresConnection?
    private let cancelState = Mutex(CancelState())
    private let configuration: PostgresConfiguration
    private let counters: PoolCounters
    private let canceller: DedicatedThread

    init(index: Int, configuration: PostgresConfiguration, counters: PoolCounters, canceller: DedicatedThread) {
        self.configuration = configuration
        self.counters = counters
        self.canceller = canceller
        let box = SlotBox()
        thread = DedicatedThread(name: "postgres-\(index)") { box.slot?.closeConnection() }
        box.slot = self
    }

    /// Runs `body` with the slot's connection on its thread. When the calling task is
    /// cancelled, a job that has not started does not run and a running statement is
    /// cancelled on the server; either way the call throws `CancellationError`.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let job = counters.jobs.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await thread.run { try self.perform(job, body) }
        } onCancel: {
            cancel(job)
        }
    }

    private func perform<T>(_ job: UInt64, _ body: (PostgresConnection) throws -> T) throws -> T {
        if cancelState.withLock({ $0.cancelled == job }) { throw CancellationError() }
        let connection = try usableConnection()
        let cancelled = cancelState.withLock { state -> Bool in
            guard state.cancelled != job else { return true }
            state.running = job
            return false
        }
        defer { finish(job, connection) }
        if cancelled { throw CancellationError() }
        do {
            return try body(connection)
        } catch let error as PostgresError where error.kind == .queryCanceled {
            let byTask = cancelState.withLock { $0.cancelled == job }
            throw byTask ? CancellationError() : error
        }
    }

    /// Asks for `job` to stop; the request itself goes out from the pool's canceller
    /// thread (it opens a connection to the server), and only while the job still runs,
    /// so it never reaches the next job on this connection.
    private func cancel(_ job: UInt64) {
        cancelState.withLock { $0.cancelled = job }
        canceller.submit { [self] in
            cancelState.withLock { state in
                if state.running == job { state.handle?.cancel() }
            }
        }
    }

    private func finish(_ job: UInt64, _ connection: PostgresConnection) {
        cancelState.withLock { state in
            state.running = nil
            if state.cancelled == job { state.cancelled = nil }
        }
        // A job that left a transaction open (or aborted) must not hand it to the next.
        if connection.isConnected, !connection.isIdle { _ = try? connection.executeScript("ROLLBACK") }
        if !connection.isConnected || !connection.isIdle { closeConnection() }
    }

    private func usableConnection() throws -> PostgresConnection {
        if let connection, connection.isReusable { return connection }
        if connection != nil {
            counters.reconnects.add(1, ordering: .relaxed)
            closeConnection()
        }
        let opened = try PostgresConnection(configuration: configuration)
        counters.connects.add(1, ordering: .relaxed)
        let cancel = opened.handle.makeCancel()
        cancelState.withLock { $0.handle = cancel }
        connection = opened
        return opened
    }

    /// Drops the connection (on the slot's thread).
    private func closeConnection() {
        cancelState.withLock { $0.handle = nil }
        connection = nil
    }
}

/// Lets the slot's thread reach the slot at exit without the slot existing yet when the
/// thread is made.
private final class SlotBox: @unchecked Sendable {
    // @unchecked: written once in PoolSlot.init before any job can be queued, read only
    // by the thread's exit after its queue was stopped.
    weak var slot: PoolSlot?
}

/// What a pool and its slots count, read by `PostgresPool.statistics`.
final class PoolCounters: Sendable {
    let jobs = Atomic<UInt64>(0)
    let connects = Atomic<Int>(0)
    let reconnects = Atomic<Int>(0)
    let timeouts = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let retries = Atomic<Int>(0)
}
