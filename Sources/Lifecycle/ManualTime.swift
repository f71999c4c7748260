import Synchronization

/// Time that moves only when told to: for tests and for running rules offline.
///
/// ``advance(by:)`` moves both clocks and resumes, in deadline order, every sleeper whose
/// deadline it passed. ``waitForSleepers(_:)`` lets a test wait until the component under
/// test is actually waiting before it moves time, so no test depends on the real clock.
public final class ManualTime: TimeSource {
    private struct Sleeper {
        var id: UInt64
        var deadline: Duration
        /// How long it asked to sleep when it started to.
        var span: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var satisfied: @Sendable ([Sleeper]) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var elapsed: Duration
        var wall: Int64
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var watchers: [Watcher] = []
    }

    private let state: Mutex<State>

    /// Starts at `elapsed` on the monotonic line and at `wallMilliseconds` on the wall clock
    /// (default 2026-01-05T09:00:00Z, a Monday).
    public init(elapsed: Duration = .seconds(1000), wallMilliseconds: Int64 = 1_767_603_600_000) {
        state = Mutex(State(elapsed: elapsed, wall: wallMilliseconds))
    }

    public var elapsed: Duration { state.withLock { $0.elapsed } }
    public var wallMilliseconds: Int64 { state.withLock { $0.wall } }

    /// Tasks sleeping on this source now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves both clocks forward and wakes the sleepers whose deadline has come.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "time does not go back")
        let woken = state.withLock { state -> [Sleeper] in
            state.elapsed += duration
            state.wall += Int64(duration.seconds * 1000)
            let due = state.sleepers.filter { $0.deadline <= state.elapsed }
            state.sleepers.removeAll { $0.deadline <= state.elapsed }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Sets the wall clock alone (a clock step, a time-zone test); sleepers are not woken.
    public func setWall(milliseconds: Int64) {
        state.withLock { $0.wall = milliseconds }
    }

    /// Returns once at least `count` tasks sleep on this source.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitFor { $0.count >= count }
    }

    /// Returns once a task sleeps on this source that asked to sleep for `span`: the one
    /// periodic loop a test means, where others (with other periods) share the source.
    public func waitForSleeper(sleeping span: Duration) async {
        await waitFor { $0.contains { $0.span == span } }
    }

    private func waitFor(_ satisfied: @escaping @Sendable ([Sleeper]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if satisfied(state.sleepers) { return true }
                state.watchers.append(Watcher(satisfied: satisfied, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // The cancellation flag is set before the handler below runs, and the
                // handler needs the lock: read under the lock, a cancellation is either seen
                // here or finds the sleeper listed.
                let (cancelled, due, watchers) = state.withLock { state -> (Bool, Bool, [Watcher]) in
                    if Task.isCancelled { return (true, true, []) }
                    if deadline <= state.elapsed { return (false, true, []) }
                    state.sleepers.append(
                        Sleeper(id: id, deadline: deadline, span: deadline - state.elapsed, continuation: continuation))
                    let sleepers = state.sleepers
                    let ready = state.watchers.filter { $0.satisfied(sleepers) }
                    state.watchers.removeAll { $0.satisfied(sleepers) }
                    return (false, false, ready)
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else if due {
                    continuation.resume()
                }
                for watcher in watchers { watcher.continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
