import Synchronization

/// Wakes one waiting task: ``ring()`` resumes the task in ``wait()``, or, when none waits,
/// makes the next ``wait()`` return at once. A task cancelled while waiting returns too.
///
/// The loops of the bot's parts (the journal's writer, the work queues) sleep on one
/// of these instead of polling.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    init() {}

    /// Wakes the waiter, or the next one to wait.
    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after a ring (now or earlier) or when the calling task is cancelled; one
    /// task waits at a time.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Cancellation is read under the lock, so the handler below either finds
                // the waiter stored or the flag is seen here.
                let resumeNow = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
