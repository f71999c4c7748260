import Foundation
import Lifecycle

/// A thread of its own that runs blocking jobs one after another, so libpq's blocking
/// calls never occupy a thread of Swift's cooperative pool.
///
/// Why threads and not libpq's asynchronous API: a session runs one statement at a time
/// whichever API drives it, so a thread per pooled session costs only its stack (the pool
/// has a few dozen at most; PostgreSQL itself spends a process per session), and the
/// blocking calls keep all of libpq's behaviour (authentication, TLS, errors) without
/// re-implementing its state machine around `poll`. Cancelling a running statement goes
/// through `PQcancel`, which libpq allows from another thread.
final class DedicatedThread: Sendable {
    private let jobs = WorkQueue<@Sendable () -> Void>()
    private let ended = Latch()

    /// Starts the thread; `atExit` runs on it after the last job (to close what it owns).
    init(name: String, atExit: @escaping @Sendable () -> Void = {}) {
        let thread = Thread { [jobs, ended] in
            while true {
                let batch = jobs.take(upTo: 1)
                if batch.isEmpty { break }
                for job in batch { job() }
            }
            atExit()
            ended.open()
        }
        thread.name = name
        thread.stackSize = 512 << 10
        thread.start()
    }

    /// Runs `body` on the thread and returns its result; `StoreError.closed` once stopped.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let queued = jobs.push { continuation.resume(with: Result { try body() }) }
            if !queued { continuation.resume(throwing: StoreError.closed) }
        }
    }

    /// Queues `job` without waiting for it; false once stopped.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool { jobs.push(job) }

    /// Lets the thread finish the queued jobs, then end.
    func stop() { jobs.stop() }

    /// Returns once the thread has ended (after `stop()`).
    func finished() async { await ended.wait() }
}
