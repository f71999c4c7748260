import Foundation
import IMClient
import IMProtocol
import TestSupport

/// `switchboard serve` as a child process on a fixed loopback port, started, killed and
/// started again on the same data, with an administrator made the way an operator makes
/// one (on the store, before the first start) for the accounts no registration makes.
final class ServerUnderTest: @unchecked Sendable {
    // `process` is replaced only by the scenario's own task (restart), never concurrently.
    let binary: String
    let configPath: String
    let logPath: String
    let port: Int
    let store: any SoakStore
    let transport: CurlTransport
    private(set) var process: SpawnedProcess
    /// Logged in as the administrator.
    private(set) var administrator: APIClient
    /// Starts so far, the first included.
    private(set) var starts = 1

    static let administratorName = "soak-admin"

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var client: APIClient { APIClient(transport: transport, baseURL: baseURL) }

    /// Writes the config (`settings` are more `server:` keys), makes the administrator and
    /// starts the server.
    init(binary: String, store: any SoakStore, work: String, transport: CurlTransport, settings: [String] = []) async throws {
        self.binary = binary
        self.store = store
        self.transport = transport
        port = try Loopback.freePort()
        configPath = work + "/server.yaml"
        logPath = work + "/server.log"
        let lines = ["log_level: warning", "server:", "  listen: 127.0.0.1:\(port)",
                     "  password_hashing: { memory_kib: 1024, iterations: 1 }"]
            + (store.serverSettings + settings).map { "  " + $0 }
        try (lines.joined(separator: "\n") + "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
        let password = "soak administrator password"
        try await store.makeAdministrator(Self.administratorName, password: password, binary: binary)
        process = try SpawnedProcess.logging(to: logPath, binary, ["serve", "--config", configPath])
        administrator = APIClient(transport: transport, baseURL: "http://127.0.0.1:\(port)")
        try await waitUntilServing()
        administrator = try await client.login(Self.administratorName, password: password)
    }

    /// An account made by the administrator (bot accounts cannot register), logged in.
    func createAccount(_ username: String, password: String, bot: Bool = false) async throws -> APIClient {
        let request = AdminCreateUser(username: username, password: password, bot: bot)
        _ = try await administrator.expect("POST", "/v1/admin/users", body: try WireJSON.encoder().encode(request))
        return try await client.login(username, password: password)
    }

    /// Waits until `/healthz` answers 200; fails when the process exits first.
    func waitUntilServing(patience: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while clock.now < deadline {
            if let status = process.exitStatus {
                throw SoakFailure("the server exited with \(status) while starting; see \(logPath)")
            }
            if let answer = try? await client.send("GET", "/healthz", timeout: .seconds(2)), answer.status == 200 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SoakFailure("the server did not answer /healthz within \(patience); see \(logPath)")
    }

    /// SIGKILL, and the wait for the process to be gone.
    func crash() async throws {
        try await process.kill(SIGKILL)
    }

    /// A new process on the same config and data; returns once it serves.
    func restart() async throws {
        if process.isRunning { throw SoakFailure("restart while the server still runs") }
        process = try SpawnedProcess.logging(to: logPath, binary, ["serve", "--config", configPath])
        starts += 1
        try await waitUntilServing()
    }

    /// SIGTERM (a graceful stop), SIGKILL if that takes longer than `patience`; the exit status.
    @discardableResult
    func stop(patience: Duration = .seconds(30)) async throws -> Int32 {
        do {
            return try await process.kill(SIGTERM, patience: patience)
        } catch {
            return try await process.kill(SIGKILL)
        }
    }
}
