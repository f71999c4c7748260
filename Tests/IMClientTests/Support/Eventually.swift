/// Returns once `condition` holds, checking it every few milliseconds; fails with a
/// message instead of hanging when it does not hold within `seconds`.
///
/// For conditions that become true through other tasks (a request arriving, an element
/// collected); never a way to wait for time to pass.
func eventually(
    _ what: String, seconds: Int = 10, _ condition: @Sendable () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw HangError(what: what) }
        try await Task.sleep(for: .milliseconds(2))
    }
}
