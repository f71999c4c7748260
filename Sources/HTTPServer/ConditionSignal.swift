import Synchronization

/// Lets `shutdown` wait, with a time limit, for conditions that MHD's threads and the
/// request tasks make true (a gauge reaching zero). Whoever changes what a condition
/// reads calls `notify()` after the change; waiters re-check under the lock, so no
/// wake-up is lost.
final class ConditionSignal: Sendable {
    private struct State {
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Wakes every waiter so it checks its condition again.
    func notify() {
        let waiters = state.withLock { state in
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until `condition` holds or `timeout` passes; returns whether it holds.
    func wait(until condition: @escaping @Sendable () -> Bool, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !condition(), !Task.isCancelled { await self.waitForNotify(unless: condition) }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
        return condition()
    }

    private func waitForNotify(unless condition: @Sendable () -> Bool) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if condition() || state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: id) { return Optional(waiter) }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume()
        }
    }
}
