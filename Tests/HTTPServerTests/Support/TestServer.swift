import HTTPServer
import Lifecycle
import TestSupport

/// A configuration for tests: loopback, a free port, small limits.
///
/// The header and idle timeouts are long (tests of those timeouts set their own): on a
/// loaded machine a keep-alive connection of a busy test can wait many seconds between
/// its requests, and must not be reaped as if it were slow.
func testConfiguration(
    headerTimeout: Int = 120, maxBodyBytes: Int = 1 << 20, shutdownGrace: Double = 10
) -> HTTPServerConfiguration {
    HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, threads: 2, connectionLimit: 2_000, idleTimeout: 300,
        headerTimeout: headerTimeout, connectionsPerAddress: 2_000, maxBodyBytes: maxBodyBytes,
        connectionMemory: 16 * 1024, shutdownGrace: shutdownGrace)
}

/// Starts a server, runs it as a service while `body` runs, and stops it however `body`
/// ends.
func withHTTPServer<T>(
    _ configuration: HTTPServerConfiguration = testConfiguration(),
    time: any TimeSource = SystemTime(),
    responder: some HTTPResponder,
    _ body: (HTTPServer) async throws -> T
) async throws -> T {
    let server = HTTPServer(configuration: configuration, responder: responder, time: time)
    try server.start()
    return try await withRunning(server) { try await body(server) }
}

/// Runs `body` (a test of the server's own lifecycle), then shuts the server down however
/// `body` ends; `shutdown()` is idempotent, so a body that stopped it already is fine.
func shutsDownAfter<T>(_ server: HTTPServer, _ body: () async throws -> T) async throws -> T {
    try await ensuring(body) { await server.shutdown() }
}
