import Foundation
import IMClient

/// A release `switchboard run` over a bots folder, against a benchmark's server, with its
/// listener on a free loopback port.
public enum BenchRunner {
    /// Starts the runner on `folder/bots` (state in `folder/state`) and returns once
    /// `bots` bots report connected in its `/metrics`; the process and its listener's URL.
    public static func start(_ binary: String, server: String, folder: String, bots: Int,
                             transport: CurlTransport) async throws -> (ChildProcess, String) {
        let port = ChildProcess.freePort()
        let runner = try ChildProcess(
            binary: binary, arguments: ["run"],
            config: """
                log_level: warning
                runner:
                  server: \(server)
                  listen: 127.0.0.1:\(port)
                  bots: \(folder)/bots
                  state: \(folder)/state
                """, folder: folder)
        let url = "http://127.0.0.1:\(port)"
        do {
            try await Concurrently.waitUntil(seconds: 300) {
                if runner.exited != nil { return true }
                guard let answer = try? await transport.send(TransportRequest(url: url + "/metrics")) else { return false }
                let text = String(decoding: answer.body, as: UTF8.self)
                return text.split(separator: "\n").filter { $0.hasPrefix("switchboard_bot_connected{") && $0.hasSuffix(" 1") }
                    .count >= bots
            }
            if let exited = runner.exited { throw BenchError("the runner \(exited)") }
        } catch {
            runner.stop()
            throw BenchError("the runner did not connect its \(bots) bots: \(error)")
        }
        return (runner, url)
    }
}
