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
                let firstConfig = try fixture.processConfig(server: "http://127.0.0.1:\(unreachable.port)", name: "first.yaml")
                let secondConfig = try fixture.processConfig(server: server.baseURL, name: "second.yaml")

                let first = try SpawnedProcess(binary, ["run", "--config", firstConfig])
                try await ensuring({
                    let port = try await first.runnerListenerPort()
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

                let second = try SpawnedProcess(binary, ["run", "--config", secondConfig])
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

        func groupMessages(_ alice: TestClient) async throws -> [String] {
            try await alice.get("/v1/conversations/group:oncall/messages").decode(MessagePage.self).messages
                .filter { $0.sender == "alerts" && $0.type != .system }.map(\.text)
        }
    }
}
