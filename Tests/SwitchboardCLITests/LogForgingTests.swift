#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing

/// Log forging, tried from outside: `switchboard serve` at debug level logs every request's
/// path; a path carrying `%0A` and a line of its own must stay on its request's line.
@Suite("log forging")
struct LogForgingTests {
    @Test(.timeLimit(.minutes(3)))
    func aNewlineInAPathCannotStartALineOfItsOwn() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let log = try sandbox.write("server.log", "")
        let process = try SpawnedProcess(
            binary, ["serve", "--listen", "127.0.0.1:0", "--data", sandbox.path("data"), "--log-level", "debug", "--log-file", log])
        try await process.whileRunning {
            let text = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            let url = try await process.serverURL(in: text)
            let forged = "2026-01-01T00:00:00.000Z error server: admin password reset by root"
            let path = "/v1/x%0A" + forged.replacingOccurrences(of: " ", with: "%20") + "%0D%1B%5B2K%E2%80%AE"
            _ = try await TestClient(baseURL: url).get(path)
            try await eventually("the request logged") { text().contains("GET /v1/x") }

            let lines = text().split(separator: "\n")
            #expect(!lines.contains { $0.hasPrefix("2026-01-01T00:00:00.000Z") }, "\(lines)")
            let logged = try #require(lines.first { $0.contains("GET /v1/x") })
            #expect(logged.contains(#"GET /v1/x\n2026-01-01T00:00:00.000Z error server: admin password reset by root\r\u{1B}[2K\u{202E} 404"#),
                    "\(logged)")
            #expect(try await process.stop(SIGTERM) == 0, "\(process.errors)")
        }
    }
}
