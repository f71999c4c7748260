import HTTPServer
import Lifecycle
import TestSupport

/// A configuration for tests: loopback, a free port, small limits.
func testConfiguration(
    headerTimeout: Int = 10, maxBodyBytes: Int = 1 << 20, shutdownGrace: Double = 10
) -> HTTPServerConfiguration {
    HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, threads: 2, connectionLimit: 2_000, idleTimeout: 60,
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
