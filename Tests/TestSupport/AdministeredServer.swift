import IMProtocol
import IMServer

/// The administrator of a test server: configured as an admin and registered, so that
/// tests can act with administration (the bot runner creates bot accounts with it).
public enum TestAdministrator {
    public static let name = "root"
    public static let password = "correct horse battery"
}

/// Runs `body` against a server of its own whose administrator is registered, with the
/// administrator's token; the server is stopped and its data removed however `body` ends.
public func withAdministeredServer<T>(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (TestServer, _ adminToken: String) async throws -> T
) async throws -> T {
    try await withServer({ config in
        config.admins = [TestAdministrator.name]
        configure(&config)
    }) { server in
        let (admin, _) = try await server.client.register(TestAdministrator.name, password: TestAdministrator.password)
        guard let token = admin.token else { throw TestFailure("the administrator got no token") }
        return try await body(server, token)
    }
}
