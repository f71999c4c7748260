#if canImport(Glibc)
import Glibc
#endif
import Lifecycle

/// SIGINT and SIGTERM cancel the running command (a graceful stop); a second one exits
/// at once.
///
/// The watching is Lifecycle's `ShutdownSignals`, which counts who needs a signal ignored:
/// a command that runs a `ServiceGroup` with the same signals (`serve`, `run`, `up`) adds
/// a second watcher, and both hear every signal. (Two watchers that each set the
/// disposition themselves would undo the first one's set-up, and the signal would be lost.)
enum Signals {
    /// Runs `work` until it ends or SIGINT or SIGTERM cancels it.
    ///
    /// Cancelling the caller cancels the work too, as a signal does (a program that
    /// embeds the command line, or a test, stops a command that way).
    static func runCancellable(_ work: @escaping @Sendable () async throws -> Int32) async throws -> Int32 {
        let task = Task { try await work() }
        let signals = ShutdownSignals([SIGINT, SIGTERM]) { _ in task.cancel() }
        defer { signals.cancel() }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
