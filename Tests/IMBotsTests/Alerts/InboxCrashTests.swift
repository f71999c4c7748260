#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMClient
import IMProtocol
import TestSupport
import Testing

extension ServerSuites {
    /// The durable inbox with a real runner process: answered 200, killed at once, the alert
    /// still arrives after a restart.
    @Suite(.timeLimit(.minutes(3))) struct InboxCrashTests {
        @Test func aRunnerKilledRightAfterAnsweringDeliversTheAlertAfterRestart() async throws {
            let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
            try await withAlertServer { server, fixture, _, alice in
                try fixture.write(AlertWorld.bot(rules: AlertWorld.incidentRule), as: "alerts.yaml")
                // The first runner cannot reach the server (bound, never listening): it can
                // store webhooks, but not deliver them, so the kill surely lands between the two.
                let unreachable = try LoopbackSocket()
                defer { close(unreachable.descriptor) }
                try config(fixture, server: "http://127.0.0.1:\(unreachable.port)").write(
                    toFile: fixture.root + "/first.yaml", atomically: true, encoding: .utf8)
                try config(fixture, server: server.baseURL).write(
                    toFile: fixture.root + "/second.yaml", atomically: true, encoding: .utf8)

                let first = try SpawnedProcess(binary, ["run", "--config", fixture.root + "/first.yaml"])
                try await ensuring({
                    let port = try await listenerPort(of: first)
                    try await eventually("the webhook route is served") { first.errors.contains("takes webhooks on") }
                    let answer = try await TestClient.sharedTransport.send(TransportRequest(
                        method: "POST", url: "http://127.0.0.1:\(port)/hooks/alertmanager",
                        headers: [("Authorization", "Bearer \(AlertWorld.token)")],
                        body: AlertBodies.diskFull([("db-7", .firing)])))
                    #expect(answer.status == 200)
                    #expect(String(decoding: answer.body, as: UTF8.self).contains("stored"))
                    #expect(try await first.stop(SIGKILL) == 128 + SIGKILL)
                }) {
                    if first.exitStatus == nil { _ = try? await first.stop(SIGKILL) }
                }
                #expect(try await groupMessages(alice).isEmpty, "nothing was delivered before the kill")

                let second = try SpawnedProcess(binary, ["run", "--config", fixture.root + "/second.yaml"])
                try await ensuring({
                    var texts: [String] = []
                    try await eventually("the stored alert delivered", hangGuard: .seconds(60)) {
                        texts = try await groupMessages(alice)
                        return !texts.isEmpty
                    }
                    #expect(texts.count == 1)
                    #expect(texts.first?.hasPrefix("🔥 FIRING: DiskFull") == true)
                    #expect(try await second.stop(SIGTERM) == 0, "\(second.errors)")
                }) {
                    if second.exitStatus == nil { _ = try? await second.stop(SIGTERM) }
                }
            }
        }

        func config(_ fixture: RunnerFixture, server: String) -> String {
            """
            log_level: info
            runner:
              server: \(server)
              listen: 127.0.0.1:0
              bots: \(fixture.bots)
              state: \(fixture.state)
            """
        }

        /// The listener's port, from the runner's log line.
        func listenerPort(of process: SpawnedProcess) async throws -> Int {
            var port: Int?
            try await eventually("the runner's listener") {
                guard let range = process.errors.range(of: "runner listening on http://127.0.0.1:") else { return false }
                port = Int(process.errors[range.upperBound...].prefix { $0.isNumber })
                return port != nil
            }
            return port ?? 0
        }

        func groupMessages(_ alice: TestClient) async throws -> [String] {
            try await alice.get("/v1/conversations/group:oncall/messages").decode(MessagePage.self).messages
                .filter { $0.sender == "alerts" && $0.type != .system }.map(\.text)
        }
    }
}
