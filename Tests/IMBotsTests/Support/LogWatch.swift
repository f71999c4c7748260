import Logging
import Synchronization
import TestSupport

/// A log sink that keeps every line and wakes whoever waits for a line, so tests wait
/// for the log line itself instead of polling for it.
final class LogWatch: LogSink {
    struct Line: Sendable {
        var level: LogLevel
        var message: String
    }

    private struct State {
        var lines: [Line] = []
        var waiters: [(id: Int, text: String, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    var lines: [Line] { state.withLock { $0.lines } }

    func contains(_ text: String) -> Bool { lines.contains { $0.message.contains(text) } }

    func write(level: LogLevel, label: String, message: String, metadata: [(String, String)]) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.lines.append(Line(level: level, message: message))
            let ready = state.waiters.filter { message.contains($0.text) }
            state.waiters.removeAll { message.contains($0.text) }
            return ready.map(\.continuation)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once a line containing `text` was logged (before or after the call);
    /// throws `HangError` after `hangGuard` (TestSupport's hang guard: it only stops a
    /// broken test).
    func line(containing text: String, hangGuard: Duration = .seconds(30)) async throws {
        try await withHangGuard("a log line with '\(text)'", hangGuard: hangGuard) { await self.wait(for: text) }
    }

    /// Waits for a line with `text`; returns at once when cancelled (the hang guard).
    private func wait(for text: String) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let seen = state.withLock { state -> Bool in
                    if Task.isCancelled || state.lines.contains(where: { $0.message.contains(text) }) { return true }
                    state.waiters.append((id, text, continuation))
                    return false
                }
                if seen { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiters.removeAll { $0.id == id } }
                return state.waiters.first { $0.id == id }
            }
            waiter?.continuation.resume()
        }
    }
}
