import Foundation
import IMClient

/// `switchboard run` as a child process with one bot folder and one state folder, killed
/// and started again on the same state.
final class RunnerUnderTest: Sendable {
    let child: ServingProcess
    /// Its listener: `/healthz`, `/metrics` and the bots' webhook routes.
    let baseURL: String

    /// Writes the runner's config for `server` and the bots in `bots`, and starts it.
    init(binary: String, server: String, bots: String, work: String, environment: [String: String],
         transport: CurlTransport) async throws {
        let port = try Loopback.freePort()
        baseURL = "http://127.0.0.1:\(port)"
        let configPath = work + "/runner.yaml"
        let config = """
            log_level: info
            runner:
              server: \(server)
              listen: 127.0.0.1:\(port)
              bots: \(bots)
              state: \(work)/state
            """
        try (config + "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
        child = try await ServingProcess(
            "the runner", binary: binary, arguments: ["run", "--config", configPath], environment: environment,
            log: work + "/runner.log", health: APIClient(transport: transport, baseURL: baseURL))
    }

    func crash() async throws { try await child.crash() }
    func restart() async throws { try await child.restart() }
    @discardableResult
    func stop() async -> Int32 { await child.stop() }
}
