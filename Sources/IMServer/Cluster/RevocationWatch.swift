import IMStore
import Synchronization

/// Keeps a server node up to date with the logins ended on any node of its database,
/// checked before every request trusts a login: `catchUp()` returns once the revocation
/// log was read by a read that *started after it was called*, and what that read found
/// was applied. So a logout committed on node A before a request reaches node B is known
/// to B before it answers that request; a notification alone could not promise it.
///
/// One read at a time serves every request that arrived before it started: a caller that
/// finds a read in flight waits for the next one, which the first of the waiters makes
/// for all of them once the read in flight is done. Under load that is one small query
/// per round trip to the database, whatever the number of requests, and each request
/// waits at most two of them.
final class RevocationWatch: Sendable {
    private enum Turn {
        /// Read now, then resume these.
        case read(serving: [CheckedContinuation<Turn, any Error>])
        /// Another caller's read, started after this one arrived, was applied.
        case served
    }

    private struct State {
        var reading = false
        var waiting: [CheckedContinuation<Turn, any Error>] = []
        /// The newest epoch applied.
        var epoch: Int64
    }

    private let state: Mutex<State>
    private let read: @Sendable (Int64) async throws -> RevocationLog

    /// A watch that knows every revocation up to `epoch`; `read` reads the log after an
    /// epoch.
    init(epoch: Int64, read: @escaping @Sendable (Int64) async throws -> RevocationLog) {
        state = Mutex(State(epoch: epoch))
        self.read = read
    }

    /// The newest revocation epoch applied.
    var epoch: Int64 { state.withLock { $0.epoch } }

    /// Returns once every revocation committed before the call is applied; `apply` acts on
    /// what a read found, on the reading task (every caller passes the same).
    func catchUp(apply: (RevocationLog) -> Void) async throws {
        let first = state.withLock { state -> Bool in
            guard !state.reading else { return false }
            state.reading = true
            return true
        }
        var turn: Turn = .read(serving: [])
        if !first {
            turn = try await withCheckedThrowingContinuation { continuation in
                let readNow = state.withLock { state -> Bool in
                    // The read in flight may have ended in between: then read now.
                    guard state.reading else {
                        state.reading = true
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if readNow { continuation.resume(returning: .read(serving: [])) }
            }
        }
        guard case .read(let serving) = turn else { return }
        let outcome: Result<Void, any Error>
        do {
            let log = try await read(state.withLock { $0.epoch })
            apply(log)
            state.withLock { $0.epoch = max($0.epoch, log.epoch) }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        for continuation in serving { continuation.resume(with: outcome.map { .served }) }
        // Whoever arrived during this read needs a read of its own: the first of them makes it.
        let next = state.withLock { state -> [CheckedContinuation<Turn, any Error>] in
            defer { state.waiting = [] }
            if state.waiting.isEmpty { state.reading = false }
            return state.waiting
        }
        if let reader = next.first { reader.resume(returning: .read(serving: Array(next.dropFirst()))) }
        try outcome.get()
    }
}
