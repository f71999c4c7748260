/// Runs `body`, failing with a message instead of hanging when it takes longer than
/// `seconds` (a guard against a broken test, not a timing assertion).
func withHangGuard<T: Sendable>(
    _ what: String, seconds: Int = 10, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw HangError(what: what)
        }
        return value
    }
}

struct HangError: Error, CustomStringConvertible {
    var what: String
    var description: String { "hung: \(what)" }
}
