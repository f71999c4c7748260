import HTTPServer

/// A configuration for tests: loopback, a free port, small limits.
func testConfiguration(
    headerTimeout: Int = 10, maxBodyBytes: Int = 1 << 20, shutdownGrace: Double = 10
) -> HTTPServerConfiguration {
    HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, threads: 2, connectionLimit: 2_000, idleTimeout: 60,
        headerTimeout: headerTimeout, maxBodyBytes: maxBodyBytes, connectionMemory: 16 * 1024,
        shutdownGrace: shutdownGrace)
}

/// Starts a server, runs `body` with it, and shuts it down however `body` ends.
func withServer<T>(
    _ configuration: HTTPServerConfiguration = testConfiguration(),
    responder: some HTTPResponder,
    _ body: (HTTPServer) async throws -> T
) async throws -> T {
    let server = HTTPServer(configuration: configuration, responder: responder)
    try server.start()
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}
