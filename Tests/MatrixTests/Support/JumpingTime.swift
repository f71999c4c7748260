import Lifecycle
import Synchronization

/// The real clocks, which a test can move forward at once (``jump(by:)``): for a runner
/// against a real homeserver, where everything runs in real time except the timers of
/// minutes a test must not wait for (a verification's `within: 10m`). A jump wakes the
/// sleepers whose deadline it passed; the others sleep on, in real time, to their
/// deadline on the moved line.
final class JumpingTime: TimeSource {
    private struct State {
        var offset: Duration = .zero
        var nextID: UInt64 = 0
        /// Sleepers waiting for the next jump (or their real deadline), by id.
        var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Sleepers cancelled before they started waiting.
        var cancelled: Set<UInt64> = []
    }

    private let system = SystemTime()
    private let state = Mutex(State())

    var elapsed: Duration { system.elapsed + state.withLock { $0.offset } }

    var wallMilliseconds: Int64 {
        let offset = state.withLock { $0.offset }
        return system.wallMilliseconds + offset.components.seconds * 1000
            + offset.components.attoseconds / 1_000_000_000_000_000
    }

    /// Moves both clocks forward by `duration`, waking the sleepers it takes past their deadline.
    func jump(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.offset += duration
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for sleeper in woken { sleeper.resume() }
    }

    func sleep(until deadline: Duration) async throws {
        while true {
            try Task.checkCancellation()
            let remaining = deadline - elapsed
            if remaining <= .zero { return }
            // Until the real deadline or a jump, whichever comes first; then look again.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await Task.sleep(for: remaining) }
                group.addTask { await self.nextJump() }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }

    private func nextJump() async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiting = state.waiting.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return waiting
            }
            waiting?.resume()
        }
    }
}
