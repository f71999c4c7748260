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
        /// Opened by the next jump (and then replaced by a fresh one).
        var jumped = Latch()
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
        let jumped = state.withLock { state -> Latch in
            state.offset += duration
            defer { state.jumped = Latch() }
            return state.jumped
        }
        jumped.open()
    }

    func sleep(until deadline: Duration) async throws {
        while true {
            try Task.checkCancellation()
            // The latch is taken before the time is read, so a jump between the two wakes this sleeper.
            let jumped = state.withLock { $0.jumped }
            let remaining = deadline - elapsed
            if remaining <= .zero { return }
            // Until the real deadline or a jump, whichever comes first; then look again.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await Task.sleep(for: remaining) }
                group.addTask { await jumped.wait() }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }
}
