import Foundation
import TestSupport

/// A `switchboard` command run as a child process that answers `GET /healthz` once it
/// serves: started, killed and started again on the same files, its output appended to
/// one log across restarts.
final class ServingProcess: @unchecked Sendable {
    // `process` is replaced only by the scenario's own task (restart), never concurrently.
    /// How failures name it: "the server", "the runner".
    let name: String
    let binary: String
    let arguments: [String]
    let environment: [String: String]
    let logPath: String
    /// Where its `/healthz` is asked.
    let health: APIClient
    private(set) var process: SpawnedProcess

    /// Starts it and returns once it serves.
    init(_ name: String, binary: String, arguments: [String], environment: [String: String] = [:], log: String,
         health: APIClient) async throws {
        self.name = name
        self.binary = binary
        self.arguments = arguments
        self.environment = environment
        logPath = log
        self.health = health
        process = try SpawnedProcess.logging(to: log, binary, arguments, environment: environment)
        try await waitUntilServing()
    }

    /// Waits until `/healthz` answers 200; fails when the process exits first.
    func waitUntilServing(patience: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while clock.now < deadline {
            if let status = process.exitStatus {
                throw SoakFailure("\(name) exited with \(status) while starting; see \(logPath)")
            }
            if let answer = try? await health.send("GET", "/healthz", timeout: .seconds(2)), answer.status == 200 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SoakFailure("\(name) did not answer /healthz within \(patience); see \(logPath)")
    }

    /// SIGKILL, and the wait for the process to be gone.
    func crash() async throws {
        try await process.stop(SIGKILL)
    }

    /// A new process on the same arguments and files; returns once it serves.
    func restart() async throws {
        if process.isRunning { throw SoakFailure("restart while \(name) still runs") }
        process = try SpawnedProcess.logging(to: logPath, binary, arguments, environment: environment)
        try await waitUntilServing()
    }

    /// SIGTERM (a graceful stop), SIGKILL if that takes longer than `patience`; the exit status.
    @discardableResult
    func stop(patience: Duration = .seconds(30)) async -> Int32 {
        do {
            return try await process.stop(SIGTERM, hangGuard: patience)
        } catch {
            // `stop` killed it after the guard: its status says so.
            return process.exitStatus ?? -1
        }
    }
}
