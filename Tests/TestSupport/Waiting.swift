import Synchronization

/// Returns once `condition` holds, checking it again and again; throws `HangError`
/// instead of hanging when it does not hold within `hangGuard`.
///
/// For conditions other tasks make true (a request arriving, a poll parking, a line
/// logged): the guard only stops a broken test, it is no claim about speed, and this is
/// never a way to let time pass (tests move a `ManualTime` for that).
public func eventually(
    _ what: String, hangGuard: Duration = .seconds(30), _ condition: () async throws -> Bool
) async throws {
    let giveUp = ContinuousClock.now + hangGuard
    while try await !condition() {
        guard ContinuousClock.now < giveUp else { throw HangError(what: "still waiting for: \(what)") }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// Runs `body`, throwing `HangError` instead of hanging when it does not finish within
/// `hangGuard` (a guard against a broken test, not a timing assertion).
///
/// Cancelling the caller cancels `body`. At the limit `body` is cancelled and the guard
/// returns even when `body` ignores that (a command that does not stop).
public func withHangGuard<T: Sendable>(
    _ what: String, hangGuard: Duration = .seconds(30), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let tasks = Mutex<[Task<Void, Never>]>([])
    let finish: @Sendable (Result<T, any Error>) -> Void = { result in
        outcome.withLock { $0.take() }?.resume(with: result)
    }
    // Both tasks are cancelled when the guard returns (and when its caller is cancelled).
    defer { for task in tasks.withLock({ $0 }) { task.cancel() } }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.withLock { $0 = continuation }
            let worker = Task {
                do {
                    finish(.success(try await body()))
                } catch {
                    finish(.failure(error))
                }
            }
            let timer = Task {
                try? await Task.sleep(for: hangGuard)
                finish(.failure(HangError(what: what)))
            }
            let cancelledAlready = tasks.withLock { list -> Bool in
                list = [worker, timer]
                return Task.isCancelled
            }
            if cancelledAlready { worker.cancel() }
        }
    } onCancel: {
        for task in tasks.withLock({ $0 }).prefix(1) { task.cancel() }
    }
}

/// A test step that did not finish, or a condition that never held.
public struct HangError: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "hung: \(what)" }
    public init(what: String) { self.what = what }
}
