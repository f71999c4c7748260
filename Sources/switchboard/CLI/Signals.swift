#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Whether a signal arrived before.
private final class SeenFlag: Sendable {
    let flag = Atomic<Bool>(false)
}

/// The dispositions of SIGINT and SIGTERM from before the first command that is running
/// set them to "ignore" (so that only its dispatch sources see them), and how many such
/// commands run; the last one to end puts them back, so that a program embedding the
/// command line (a test run) can still be interrupted afterwards.
private struct IgnoredSignals {
    var users = 0
    var previous: [Int32: __sighandler_t?] = [:]
}

private let ignoredSignals = Mutex(IgnoredSignals())

/// SIGINT and SIGTERM cancel the running command (a graceful stop); a second one exits
/// at once.
enum Signals {
    /// Runs `work` until it ends or SIGINT or SIGTERM cancels it.
    ///
    /// Cancelling the caller cancels the work too, as a signal does (a program that
    /// embeds the command line, or a test, stops a command that way).
    static func runCancellable(_ work: @escaping @Sendable () async throws -> Int32) async throws -> Int32 {
        let task = Task { try await work() }
        let numbers = [SIGINT, SIGTERM]
        ignoredSignals.withLock { state in
            if state.users == 0 {
                for number in numbers { state.previous[number] = signal(number, SIG_IGN) }
            }
            state.users += 1
        }
        let sources = numbers.map { number -> any DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let seen = SeenFlag()
            source.setEventHandler {
                if seen.flag.exchange(true, ordering: .relaxed) { _exit(130) }
                task.cancel()
            }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            ignoredSignals.withLock { state in
                state.users -= 1
                guard state.users == 0 else { return }
                for (number, handler) in state.previous { signal(number, handler) }
                state.previous = [:]
            }
        }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Calls `handler` on each SIGHUP until the returned source is cancelled.
    static func onHangup(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}
