import IMServer
import Synchronization
import TestSupport
import Testing

/// A suite trait that starts one server for every test of the suite and stops it (and
/// removes its data) once the last test is done. Tests reach it through `SharedServer.current`.
///
/// Only for suites whose tests cannot disturb each other: each test makes its own
/// accounts and conversations with unique names.
struct SharedServer: SuiteTrait, TestScoping {
    /// The suite's server, while its tests run.
    @TaskLocal static var running: TestServer?

    let configure: @Sendable (inout ServerConfiguration) -> Void

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try await TestServer.start(configure)
        do {
            try await Self.$running.withValue(server) { try await function() }
        } catch {
            await server.stop()
            server.removeData()
            throw error
        }
        await server.stop()
        server.removeData()
    }

    /// The running suite's server; fails the test when the suite has no `.sharedServer` trait.
    static var current: TestServer {
        get throws {
            guard let running else { throw TestFailure("this suite has no .sharedServer trait") }
            return running
        }
    }
}

extension Trait where Self == SharedServer {
    /// One server with the test configuration for the whole suite.
    static var sharedServer: SharedServer { SharedServer(configure: { _ in }) }

    /// One server for the whole suite, with `configure` applied to the test configuration.
    static func sharedServer(_ configure: @escaping @Sendable (inout ServerConfiguration) -> Void) -> SharedServer {
        SharedServer(configure: configure)
    }
}


/// A server that a test restarts on the same data folder; `finish` stops the last one
/// and removes the data.
final class RestartableServer: Sendable {
    private let current: Mutex<TestServer>

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws {
        current = Mutex(try await TestServer.start(configure))
    }

    var server: TestServer { current.withLock { $0 } }

    /// Stops the server and starts another on the same data folder (a new port).
    @discardableResult
    func restart(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        let next = try await server.restart(configure)
        current.withLock { $0 = next }
        return next
    }

    func finish() async {
        await server.stop()
        server.removeData()
    }
}

/// Runs `body` with a server it may restart, then stops it and removes its data.
func withRestartableServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (RestartableServer) async throws -> Void
) async throws {
    let handle = try await RestartableServer(configure)
    do {
        try await body(handle)
    } catch {
        await handle.finish()
        throw error
    }
    await handle.finish()
}
