import IMServer
import Synchronization
import TestSupport
import Testing

/// A suite trait that starts one server for every test of the suite (`.sharedServer`), or
/// one per store (`.sharedServers`: SQLite, and PostgreSQL on a fresh database of the test
/// cluster), and stops them (and removes their data) once the last test is done. Tests
/// reach them through `SharedServer.current` or `SharedServer.current(_:)`; those of a
/// suite with both run on both by taking `TestStore.allCases` as arguments.
///
/// Only for suites whose tests cannot disturb each other: each test makes its own
/// accounts and conversations with unique names.
struct SharedServer: SuiteTrait, TestScoping {
    /// The suite's servers, while its tests run.
    @TaskLocal static var running: [TestStore: TestServer] = [:]

    let stores: [TestStore]
    let configure: @Sendable (inout ServerConfiguration) -> Void

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await start(stores[...], [:], function)
    }

    /// Starts a server on each store in turn, then runs the tests with all of them.
    private func start(
        _ left: ArraySlice<TestStore>, _ started: [TestStore: TestServer], _ function: @Sendable () async throws -> Void
    ) async throws {
        guard let store = left.first else {
            try await Self.$running.withValue(started) { try await function() }
            return
        }
        try await withServer(store: store, configure) { server in
            var all = started
            all[store] = server
            try await start(left.dropFirst(), all, function)
        }
    }

    /// The running suite's server on `store`; fails the test when the suite has none.
    static func current(_ store: TestStore) throws -> TestServer {
        guard let server = running[store] else { throw TestFailure("this suite has no shared server on \(store)") }
        return server
    }

    /// The running suite's SQLite server.
    static var current: TestServer { get throws { try current(.sqlite) } }
}

extension Trait where Self == SharedServer {
    /// One server with the test configuration for the whole suite.
    static var sharedServer: SharedServer { SharedServer(stores: [.sqlite], configure: { _ in }) }

    /// One server for the whole suite, with `configure` applied to the test configuration.
    static func sharedServer(_ configure: @escaping @Sendable (inout ServerConfiguration) -> Void) -> SharedServer {
        SharedServer(stores: [.sqlite], configure: configure)
    }

    /// One server per store (SQLite, PostgreSQL) for the whole suite.
    static var sharedServers: SharedServer { SharedServer(stores: TestStore.allCases, configure: { _ in }) }
}
