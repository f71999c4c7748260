#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMProtocol
import TestSupport
import Testing

/// An event poll with nothing to deliver is answered empty once its timeout is up, under
/// `switchboard up` with the shipped `config.yaml` and `bots/` exactly as a newcomer starts
/// them (only the ports changed, a fresh data folder) and under `switchboard serve`: the
/// commands run the server the same way.
@Suite("idle polls under up and serve")
struct IdlePollTests {
    @Test(.timeLimit(.minutes(3)), arguments: ["up", "serve"])
    func anIdlePollIsAnsweredEmptyWhenItsTimeoutIsUp(command: String) async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let shipped = try String(contentsOfFile: repository + "/config.yaml", encoding: .utf8)
        let config = shipped
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:0")
            .replacingOccurrences(of: "127.0.0.1:8090", with: "127.0.0.1:0")
        #expect(config != shipped)
        try sandbox.write("config.yaml", config)
        // The shipped bots, where the shipped config looks for them (./bots).
        try FileManager.default.createSymbolicLink(atPath: sandbox.path("bots"), withDestinationPath: repository + "/bots")
        let environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.path("home")]
        let process = try SpawnedProcess(
            binary, [command, "--config", "config.yaml"], environment: environment, directory: sandbox.directory)
        try await process.whileRunning {
            let url = try await process.serverURL()
            if command == "up" {
                try await eventually("the help desk polls", hangGuard: .seconds(120)) { process.errors.contains("bot helpdesk is running as helpdesk") }
            }
            let (alice, _) = try await TestClient(baseURL: url).register("alice")
            let start = try await alice.get("/v1/events").decode(EventBatch.self)

            // The transport's timeout is the guard: an answer that does not come fails the test.
            let poll = try await alice.send("GET", "/v1/events?cursor=\(start.cursor)&timeout=2", timeout: .seconds(10))

            #expect(poll.status == 200, "\(poll.text)")
            let batch = try poll.decode(EventBatch.self)
            #expect(batch.events.isEmpty)
            #expect(batch.cursor == start.cursor)
            #expect(try await process.stop(SIGTERM) == 0, "\(process.errors)")
        }
    }
}
