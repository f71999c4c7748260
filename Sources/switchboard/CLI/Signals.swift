#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Whether a signal arrived before.
private final class SeenFlag: Sendable {
    let flag = Atomic<Bool>(false)
}

/// SIGINT and SIGTERM cancel the running command (a graceful stop); a second one exits
/// at once.
enum Signals {
    /// Runs `work` until it ends or SIGINT or SIGTERM cancels it.
    ///
    /// Cancelling the caller cancels the work too, as a signal does (a program that
    /// embeds the command line, or a test, stops a command that way).
    static func runCancellable(_ work: @escaping @Sendable () async throws -> Int32) async throws -> Int32 {
        let task = Task { try await work() }
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let seen = SeenFlag()
            source.setEventHandler {
                if seen.flag.exchange(true, ordering: .relaxed) { _exit(130) }
                task.cancel()
            }
            source.resume()
            return source
        }
        defer { for source in sources { source.cancel() } }
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
