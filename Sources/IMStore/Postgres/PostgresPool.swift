import Lifecycle
import Synchronization

/// A bounded pool of PostgreSQL sessions, each on a thread of its own.
///
/// At most `maxConnections` sessions exist, opened on demand. A request that finds them
/// all busy waits in a FIFO queue of at most `maxWaiting` entries for at most
/// `acquireTimeout` (then `PostgresError.poolTimeout`); beyond that bound it is turned
/// away at once (`.poolOverloaded`), so a slow database sheds load instead of queueing
/// without end. Both are `isUnavailable` errors: the server answers 503.
///
/// Work is a synchronous closure run on the session's thread: a transaction never spans
/// a suspension point, so no session is held while its task waits for something else.
/// Errors the store has a case for come out as `StoreError` (a unique violation is
/// `.conflict`); to tell constraints apart, catch `PostgresError` inside the closure.
public final class PostgresPool: Sendable {
    /// The pool's bounds.
    public struct Configuration: Sendable {
        /// The database every session connects to.
        public var connection: PostgresConfiguration
        /// Sessions open at most.
        public var maxConnections: Int
        /// Requests waiting for a session at most; more are refused at once.
        public var maxWaiting: Int
        /// How long a request waits for a session before failing.
        public var acquireTimeout: Duration
        /// How often `transaction` runs its closure again after a serialization failure
        /// or a deadlock (the server rolled it back, so running it again is safe).
        public var transactionRetries: Int

        /// Bounds with the defaults: 10 sessions, 1000 waiting, 5 s, 3 retries.
        public init(
            connection: PostgresConfiguration, maxConnections: Int = 10, maxWaiting: Int = 1000,
            acquireTimeout: Duration = .seconds(5), transactionRetries: Int = 3
        ) {
            self.connection = connection
            self.maxConnections = max(1, maxConnections)
            self.maxWaiting = max(0, maxWaiting)
            self.acquireTimeout = acquireTimeout
            self.transactionRetries = max(0, transactionRetries)
        }
    }

    /// What the pool holds and has done, for metrics and tests.
    public struct Statistics: Sendable, Equatable {
        /// Sessions made so far (each opens its connection on first use).
        public var slots = 0
        /// Sessions free now.
        public var idle = 0
        /// Sessions running a job (or handed to a waiter) now.
        public var inUse = 0
        /// Requests waiting for a session now.
        public var waiting = 0
        /// Connections opened, including reconnects.
        public var connects = 0
        /// Connections found broken before a job and replaced.
        public var reconnects = 0
        /// Requests that waited `acquireTimeout` in vain.
        public var timeouts = 0
        /// Requests refused because the wait queue was full.
        public var rejected = 0
        /// Transactions run again after a serialization failure or deadlock.
        public var retries = 0
    }

    struct State {
        var slots: [PoolSlot] = []
        var idle: [PoolSlot] = []
        var inUse = 0
        var waiters = PoolWaiters()
        var closed = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    let configuration: Configuration
    let time: any TimeSource
    let state = Mutex(State())
    let counters = PoolCounters()
    /// Sends cancel requests for running statements (each opens a connection).
    private let canceller = DedicatedThread(name: "postgres-cancel")

    /// A pool; no connection is opened until the first request.
    public init(configuration: Configuration, time: any TimeSource = SystemTime()) {
        self.configuration = configuration
        self.time = time
    }

    deinit {
        // Without close() the threads would wait for jobs forever.
        for slot in state.withLock({ $0.slots }) { slot.thread.stop() }
        canceller.stop()
    }

    /// Runs `body` with a session on its thread.
    @discardableResult
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T)
        async throws -> T
    {
        let slot = try await acquire()
        defer { release(slot) }
        do {
            return try await slot.run(body)
        } catch {
            throw error.mappedForStore
        }
    }

    /// Runs `body` in a transaction, committed when it returns and rolled back when it
    /// throws. After a serialization failure or a deadlock it runs `body` again, up to
    /// `transactionRetries` times: `body` must do nothing but SQL on the connection.
    @discardableResult
    public func transaction<T: Sendable>(
        _ isolation: PostgresIsolation = .readCommitted,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let retries = configuration.transactionRetries
        let counters = counters
        return try await withConnection { connection in
            var attempt = 0
            while true {
                do {
                    return try connection.transaction(isolation) { try body(connection) }
                } catch let error as PostgresError where error.isRetryable && attempt < retries {
                    attempt += 1
                    counters.retries.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// The pool's state and counters now.
    public var statistics: Statistics {
        var statistics = state.withLock { state in
            Statistics(
                slots: state.slots.count, idle: state.idle.count, inUse: state.inUse, waiting: state.waiters.count)
        }
        statistics.connects = counters.connects.load(ordering: .relaxed)
        statistics.reconnects = counters.reconnects.load(ordering: .relaxed)
        statistics.timeouts = counters.timeouts.load(ordering: .relaxed)
        statistics.rejected = counters.rejected.load(ordering: .relaxed)
        statistics.retries = counters.retries.load(ordering: .relaxed)
        return statistics
    }

    /// Refuses new requests, fails the waiting ones with `StoreError.closed`, lets the
    /// running ones finish, then closes every connection and ends the threads.
    public func close() async {
        let (waiting, mustDrain) = state.withLock { state in
            state.closed = true
            state.idle = []
            let (waiting, handed) = state.waiters.removeAll()
            state.inUse -= handed  // handed over but not yet picked up: back with the pool
            return (waiting, state.inUse > 0)
        }
        for continuation in waiting { continuation.resume(throwing: StoreError.closed) }
        if mustDrain {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    if state.inUse == 0 { return true }
                    state.drained.append(continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        }
        let slots = state.withLock { $0.slots }
        for slot in slots { slot.thread.stop() }
        for slot in slots { await slot.thread.finished() }
        canceller.stop()
        await canceller.finished()
    }

    // MARK: Sessions in and out

    func acquire() async throws -> PoolSlot {
        enum Start {
            case slot(PoolSlot)
            case wait(UInt64)
            case fail(any Error)
        }
        let start = state.withLock { state -> Start in
            if state.closed { return .fail(StoreError.closed) }
            if let slot = state.idle.popLast() {
                state.inUse += 1
                return .slot(slot)
            }
            if state.slots.count < configuration.maxConnections {
                let slot = PoolSlot(
                    index: state.slots.count, configuration: configuration.connection, counters: counters,
                    canceller: canceller)
                state.slots.append(slot)
                state.inUse += 1
                return .slot(slot)
            }
            guard state.waiters.count < configuration.maxWaiting else {
                return .fail(
                    saturated(
                        .poolOverloaded,
                        "all \(configuration.maxConnections) connections are busy and \(state.waiters.count) requests are waiting already"))
            }
            return .wait(state.waiters.reserve())
        }
        switch start {
        case .slot(let slot): return slot
        case .fail(let error): throw error
        case .wait(let ticket): return try await wait(for: ticket)
        }
    }

    /// A request turned away because every session is busy, counted.
    func saturated(_ kind: PostgresError.Kind, _ message: String) -> PostgresError {
        if kind == .poolTimeout {
            counters.timeouts.add(1, ordering: .relaxed)
        } else {
            counters.rejected.add(1, ordering: .relaxed)
        }
        return PostgresError(kind: kind, message: message, context: "waiting for a database connection")
    }

    /// Hands `slot` to the oldest waiter, or back to the idle ones.
    func release(_ slot: PoolSlot) {
        let (waiter, drained) = state.withLock { state -> (CheckedContinuation<PoolSlot, any Error>?, [CheckedContinuation<Void, Never>]) in
            if !state.closed, let handOver = state.waiters.handOver(slot) {
                return (handOver.waiting, [])
            }
            state.inUse -= 1
            if !state.closed {
                state.idle.append(slot)
                return (nil, [])
            }
            guard state.inUse == 0 else { return (nil, []) }
            defer { state.drained = [] }
            return (nil, state.drained)
        }
        waiter?.resume(returning: slot)
        for continuation in drained { continuation.resume() }
    }
}
