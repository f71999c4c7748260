import Synchronization

/// A one-shot gate: ``wait()`` suspends until ``open()`` was called (before or after) or
/// the waiting task is cancelled. Safe from any thread.
public final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var nextID: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether ``open()`` has been called.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the gate and resumes every waiter; later calls do nothing.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when the gate is open or the calling task is cancelled.
    public func wait() async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Cancellation is read under the lock, so the handler below either finds
                // the waiter listed or the flag is seen here.
                let resumeNow = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
