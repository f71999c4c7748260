import Foundation
import IMClient
import IMProtocol
import TestSupport

/// `switchboard serve` as a child process on a fixed loopback port, started, killed and
/// started again on the same data, with an administrator made the way an operator makes
/// one (on the store, before the first start) for the accounts no registration makes.
final class ServerUnderTest: Sendable {
    let child: ServingProcess
    let port: Int
    let store: any SoakStore
    let transport: CurlTransport
    /// Logged in as the administrator.
    let administrator: APIClient

    static let administratorName = "soak-admin"

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var client: APIClient { APIClient(transport: transport, baseURL: baseURL) }
    var process: SpawnedProcess { child.process }
    var logPath: String { child.logPath }

    /// Writes the config (`settings` are more `server:` keys), makes the administrator and
    /// starts the server.
    init(binary: String, store: any SoakStore, work: String, transport: CurlTransport, settings: [String] = []) async throws {
        self.store = store
        self.transport = transport
        try await store.prepare()
        let port = try Loopback.freePort()
        self.port = port
        let configPath = work + "/server.yaml"
        let lines = ["log_level: warning", "server:", "  listen: 127.0.0.1:\(port)",
                     "  password_hashing: { memory_kib: 1024, iterations: 1 }"]
            + (store.serverSettings + settings).map { "  " + $0 }
        try (lines.joined(separator: "\n") + "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
        let password = "soak administrator password"
        try await store.makeAdministrator(Self.administratorName, password: password, binary: binary)
        let anonymous = APIClient(transport: transport, baseURL: "http://127.0.0.1:\(port)")
        child = try await ServingProcess("the server", binary: binary, arguments: ["serve", "--config", configPath],
                                         log: work + "/server.log", health: anonymous)
        administrator = try await anonymous.login(Self.administratorName, password: password)
    }

    /// An account made by the administrator (bot accounts cannot register), logged in.
    func createAccount(_ username: String, password: String, bot: Bool = false) async throws -> APIClient {
        let request = AdminCreateUser(username: username, password: password, bot: bot)
        _ = try await administrator.expect("POST", "/v1/admin/users", body: try WireJSON.encoder().encode(request))
        return try await client.login(username, password: password)
    }

    func crash() async throws { try await child.crash() }
    func restart() async throws { try await child.restart() }
    @discardableResult
    func stop(patience: Duration = .seconds(30)) async -> Int32 { await child.stop(patience: patience) }
}
