import Foundation
import IMClient
import TestSupport

/// `switchboard run` as a child process with one bot folder and one state folder, killed
/// and started again on the same state.
final class RunnerUnderTest: @unchecked Sendable {
    // `process` is replaced only by the scenario's own task (restart), never concurrently.
    let binary: String
    let configPath: String
    let logPath: String
    let port: Int
    let environment: [String: String]
    let transport: CurlTransport
    private(set) var process: SpawnedProcess

    /// Writes the runner's config for `server` and the bots in `bots`, and starts it.
    init(binary: String, server: String, bots: String, work: String, environment: [String: String],
         transport: CurlTransport) async throws {
        self.binary = binary
        self.environment = environment
        self.transport = transport
        port = try Loopback.freePort()
        configPath = work + "/runner.yaml"
        logPath = work + "/runner.log"
        let config = """
            log_level: info
            runner:
              server: \(server)
              listen: 127.0.0.1:\(port)
              bots: \(bots)
              state: \(work)/state
            """
        try (config + "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
        process = try SpawnedProcess.logging(to: logPath, binary, ["run", "--config", configPath], environment: environment)
        try await waitUntilServing()
    }

    /// Waits until the runner's `/healthz` answers 200; fails when the process exits first.
    func waitUntilServing(patience: Duration = .seconds(60)) async throws {
        let client = APIClient(transport: transport, baseURL: "http://127.0.0.1:\(port)")
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while clock.now < deadline {
            if let status = process.exitStatus {
                throw SoakFailure("the runner exited with \(status) while starting; see \(logPath)")
            }
            if let answer = try? await client.send("GET", "/healthz", timeout: .seconds(2)), answer.status == 200 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SoakFailure("the runner did not answer /healthz within \(patience); see \(logPath)")
    }

    func crash() async throws { try await process.kill(SIGKILL) }

    func restart() async throws {
        if process.isRunning { throw SoakFailure("restart while the runner still runs") }
        process = try SpawnedProcess.logging(to: logPath, binary, ["run", "--config", configPath], environment: environment)
        try await waitUntilServing()
    }

    @discardableResult
    func stop(patience: Duration = .seconds(30)) async throws -> Int32 {
        do {
            return try await process.kill(SIGTERM, patience: patience)
        } catch {
            return try await process.kill(SIGKILL)
        }
    }
}
