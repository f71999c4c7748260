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
