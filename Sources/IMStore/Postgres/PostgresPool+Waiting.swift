import Lifecycle

/// The requests waiting for a pool session, oldest first.
///
/// A ticket is reserved under the same lock that found every session busy, so the bound
/// counts it at once; the waiting task parks its continuation under that lock later. A
/// session released in between is held for the ticket (`handed`) until it looks.
struct PoolWaiters {
    enum Entry {
        case reserved
        case waiting(CheckedContinuation<PoolSlot, any Error>)
        case handed(PoolSlot)
    }

    /// The result of handing a session to the oldest waiter.
    struct HandOver {
        /// The waiter's continuation to resume with the session, or nil when it has not
        /// parked yet and will find the session held for it.
        var waiting: CheckedContinuation<PoolSlot, any Error>?
    }

    /// Tickets not yet served, oldest first.
    private var queue: [UInt64] = []
    private var entries: [UInt64: Entry] = [:]
    private var next: UInt64 = 0

    var count: Int { queue.count }

    mutating func reserve() -> UInt64 {
        next += 1
        queue.append(next)
        entries[next] = .reserved
        return next
    }

    /// Gives `slot` to the oldest waiter; nil when nobody waits.
    mutating func handOver(_ slot: PoolSlot) -> HandOver? {
        guard !queue.isEmpty else { return nil }
        let ticket = queue.removeFirst()
        switch entries[ticket] {
        case .waiting(let continuation):
            entries[ticket] = nil
            return HandOver(waiting: continuation)
        default:
            entries[ticket] = .handed(slot)
            return HandOver(waiting: nil)
        }
    }

    /// The waiter looks: its session if one was held for it, a failure when it is gone
    /// (cancelled or the pool closed), or nil once its continuation is parked.
    mutating func park(_ ticket: UInt64, _ continuation: CheckedContinuation<PoolSlot, any Error>, cancelled: Bool)
        -> Result<PoolSlot, any Error>?
    {
        switch entries[ticket] {
        case .handed(let slot):
            entries[ticket] = nil
            return .success(slot)
        case .reserved where !cancelled:
            entries[ticket] = .waiting(continuation)
            return nil
        case .reserved, .waiting:
            remove(ticket)
            return .failure(CancellationError())
        case nil:
            return .failure(StoreError.closed)
        }
    }

    /// Withdraws a waiter whose task was cancelled; returns its continuation to resume
    /// when it had parked. A session already held for it stays: the waiter takes it.
    mutating func cancel(_ ticket: UInt64) -> CheckedContinuation<PoolSlot, any Error>? {
        switch entries[ticket] {
        case .waiting(let continuation):
            remove(ticket)
            return continuation
        case .reserved:
            // Not parked yet: it sees the cancellation when it parks.
            return nil
        case .handed, nil:
            return nil
        }
    }

    /// Empties the queue (the pool closes): the parked continuations, and how many
    /// sessions were held for waiters that had not looked yet.
    mutating func removeAll() -> (waiting: [CheckedContinuation<PoolSlot, any Error>], handed: Int) {
        var waiting: [CheckedContinuation<PoolSlot, any Error>] = []
        var handed = 0
        for entry in entries.values {
            switch entry {
            case .waiting(let continuation): waiting.append(continuation)
            case .handed: handed += 1
            case .reserved: break
            }
        }
        queue = []
        entries = [:]
        return (waiting, handed)
    }

    private mutating func remove(_ ticket: UInt64) {
        entries[ticket] = nil
        queue.removeAll { $0 == ticket }
    }
}

extension PostgresPool {
    /// Waits for a session for `ticket`, at most `acquireTimeout`.
    ///
    /// The wait and the timer race in a task group; whichever ends first cancels the
    /// other. A session that arrives as the timer fires is used, never dropped.
    func wait(for ticket: UInt64) async throws -> PoolSlot {
        let timeout = configuration.acquireTimeout
        let outcome = await withTaskGroup(of: Result<PoolSlot?, any Error>.self) { group in
            group.addTask { await Result { try await self.turn(ticket) } }
            group.addTask { await Result { try await self.time.sleep(for: timeout); return nil } }
            var slot: PoolSlot?
            var timedOut = false
            var failure: (any Error)?
            for await result in group {
                switch result {
                case .success(let arrived?): slot = arrived
                case .success(nil): timedOut = true
                case .failure(let error): failure = failure ?? error
                }
                group.cancelAll()
            }
            if let slot { return Result<PoolSlot, any Error>.success(slot) }
            if timedOut {
                return .failure(
                    saturated(.poolTimeout, "no connection became free within \(timeout) (all \(configuration.maxConnections) busy)"))
            }
            return .failure(failure ?? CancellationError())
        }
        let slot = try outcome.get()
        if Task.isCancelled {
            release(slot)
            throw CancellationError()
        }
        return slot
    }

    /// Parks until a session is handed to `ticket`.
    private func turn(_ ticket: UInt64) async throws -> PoolSlot {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PoolSlot, any Error>) in
                // The cancellation flag is set before the handler below runs, and both
                // take the lock: a cancellation is seen here or finds the continuation.
                let now = state.withLock { state in
                    state.waiters.park(ticket, continuation, cancelled: Task.isCancelled)
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.cancel(ticket) }?.resume(throwing: CancellationError())
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing call as a value.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
