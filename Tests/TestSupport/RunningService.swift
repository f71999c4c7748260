import Lifecycle

/// Runs `service` (already started, so its port is known) while `body` runs, then
/// cancels it and waits for it to drain, however `body` ends: a failing test never leaves
/// a server running. The service runs as a `ServiceGroup` would run it.
public func withRunning<S: Service, T>(_ service: S, _ body: () async throws -> T) async throws -> T {
    let running = Task { try await service.run() }
    let result: Result<T, any Error>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    running.cancel()
    let ended = await running.result
    let value = try result.get()
    try ended.get()
    return value
}
