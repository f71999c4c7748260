#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// `switchboard up` as a user starts it: the repository's shipped bots, a sandbox for its
/// data, nothing set in the environment, the embedded server and the runner in one
/// process on free ports.
struct ShippedUp {
    let process: SpawnedProcess
    let sandbox: Sandbox
    /// The embedded server, and the runner's listener.
    let baseURL: String
    let runnerURL: String

    /// Runs `body` once the server and the runner listen; stops the process (SIGKILL if
    /// still running) however `body` ends.
    static func run(_ body: (ShippedUp) async throws -> Void) async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", """
            log_level: info
            server:
              listen: 127.0.0.1:0
              data: \(sandbox.path("data"))
              durability: normal
            runner:
              listen: 127.0.0.1:0
              bots: \(repository)/bots
              state: \(sandbox.path("data/bots"))
              admin_token: ${SWITCHBOARD_ADMIN_TOKEN:-}

            """)
        // Only what a shell would pass; no password, no administration token.
        let environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.path("home")]
        let up = try SpawnedProcess(binary, ["up", "--config", config], environment: environment)
        try await ensuring({
            var urls: (String, String)?
            try await eventually("the server and the runner listening") {
                if let server = url(after: "server listening on http://127.0.0.1:", in: up.errors),
                   let runner = url(after: "runner listening on http://127.0.0.1:", in: up.errors) {
                    urls = (server, runner)
                }
                return urls != nil || up.exitStatus != nil
            }
            guard let (baseURL, runnerURL) = urls else { throw TestFailure("up ended: \(up.errors)") }
            try await body(ShippedUp(process: up, sandbox: sandbox, baseURL: baseURL, runnerURL: runnerURL))
        }) {
            if up.exitStatus == nil { _ = try? await up.stop(SIGKILL) }
        }
    }

    /// Waits until `bot` has logged in and polls. A bot's first start makes its account and
    /// hashes its password (Argon2id, 64 MiB), which takes far longer than a request on a
    /// loaded machine running several `up` processes at once: the guard is generous.
    func botRunning(_ bot: String) async throws {
        try await eventually("bot \(bot) running", hangGuard: .seconds(120)) {
            process.errors.contains("bot \(bot) is running as \(bot)")
        }
    }

    /// `http://127.0.0.1:PORT` from the log line that starts with `prefix`.
    static func url(after prefix: String, in log: String) -> String? {
        guard let range = log.range(of: prefix) else { return nil }
        let port = log[range.upperBound...].prefix { $0.isNumber }
        return port.isEmpty ? nil : "http://127.0.0.1:\(port)"
    }
}
