import Foundation
import Lifecycle
import Synchronization

/// Runs `service` (already started, so its port is known) while `body` runs, then
/// cancels it and waits for it to drain, however `body` ends: a failing test never leaves
/// a server running. The service runs as a `ServiceGroup` would run it.
public func withRunning<S: Service, T>(_ service: S, _ body: () async throws -> T) async throws -> T {
    let running = Task { try await service.run() }
    let value = try await ensuring(body) {
        running.cancel()
        _ = await running.result
    }
    try await running.value
    return value
}

/// Runs `body`, then `cleanup` however `body` ended (an async `defer`), and returns
/// `body`'s result or rethrows its error.
public func ensuring<T>(_ body: () async throws -> T, finally cleanup: () async -> Void) async throws -> T {
    let result: Result<T, any Error>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    await cleanup()
    return try result.get()
}

/// The `switchboard` executable of this build (`swift build` makes it before the tests),
/// or `$SWITCHBOARD_BINARY`; nil when neither is there.
public var switchboardExecutable: String? {
    if let path = ProcessInfo.processInfo.environment["SWITCHBOARD_BINARY"] { return path }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    for configuration in ["debug", "release"] {
        let path = root.appendingPathComponent(".build/\(configuration)/switchboard").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}
