/// Runs `body`, failing with a message instead of hanging when it takes longer than
/// `seconds` (a guard against a broken test, not a timing assertion).
///
/// Cancelling the caller cancels `body`, whose own outcome is then returned: the guard's
/// timer never wins because of a cancellation.
func withHangGuard<T: Sendable>(
    _ what: String, seconds: Int = 10, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: GuardOutcome<T>.self) { group in
        group.addTask { .value(try await body()) }
        group.addTask {
            do {
                try await Task.sleep(for: .seconds(seconds))
                return .timedOut
            } catch {
                return .timerCancelled
            }
        }
        while let outcome = try await group.next() {
            switch outcome {
            case .value(let value):
                group.cancelAll()
                return value
            case .timedOut:
                group.cancelAll()
                throw HangError(what: what)
            case .timerCancelled:
                continue
            }
        }
        throw HangError(what: what)
    }
}

/// Which task of a hang guard finished.
private enum GuardOutcome<T: Sendable>: Sendable {
    case value(T)
    case timedOut
    case timerCancelled
}

struct HangError: Error, CustomStringConvertible {
    var what: String
    var description: String { "hung: \(what)" }
}
