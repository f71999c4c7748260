import Synchronization

/// Fails a test with a message instead of hanging when `body` does not finish within
/// `seconds` (a guard against a broken test, not a timing assertion).
///
/// Returns at the limit even when `body` ignores cancellation (a command that does not
/// stop): `body` is then cancelled and left behind.
func withHangGuard<T: Sendable>(_ what: String, seconds: Int = 20,
                                _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let finish: @Sendable (Result<T, any Error>) -> Void = { result in
        outcome.withLock { $0.take() }?.resume(with: result)
    }
    var tasks: [Task<Void, Never>] = []
    defer { for task in tasks { task.cancel() } }
    return try await withCheckedThrowingContinuation { continuation in
        outcome.withLock { $0 = continuation }
        tasks.append(Task {
            do {
                finish(.success(try await body()))
            } catch {
                finish(.failure(error))
            }
        })
        tasks.append(Task {
            try? await Task.sleep(for: .seconds(seconds))
            finish(.failure(HangError(what: what)))
        })
    }
}

/// A test step that did not finish.
struct HangError: Error, CustomStringConvertible {
    var what: String
    var description: String { "hung: \(what)" }
}
