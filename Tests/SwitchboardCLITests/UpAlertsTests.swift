#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IMClient
import IMProtocol
import TestSupport
import Testing

/// `switchboard up` with the shipped bots, as a user starts it, for the alert bridge:
/// its webhook secret generated and kept private, an alert from Alertmanager's side
/// in `group:oncall`, which the help desk shares.
@Suite("switchboard up: the alert bridge")
struct UpAlertsTests {
    @Test(.timeLimit(.minutes(3)))
    func theShippedAlertBridgeTakesAWebhookWithItsGeneratedSecretIntoTheOnCallGroup() async throws {
        try await ShippedUp.run { up in
            for bot in ["alerts", "helpdesk"] {
                try await up.botRunning(bot)
            }
            let secretFile = up.sandbox.path("data/bots/alerts/webhook-hooks-alertmanager.secret")
            #expect(up.process.errors.contains("generated one, kept in \(secretFile)"), "the path is printed")
            let attributes = try FileManager.default.attributesOfItem(atPath: secretFile)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let secret = try String(contentsOfFile: secretFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

            let body = try JSONSerialization.data(withJSONObject: [
                "version": "4", "status": "firing", "receiver": "switchboard", "groupKey": #"{}:{alertname="DiskFull"}"#,
                "groupLabels": ["alertname": "DiskFull"], "commonLabels": ["alertname": "DiskFull", "severity": "critical"],
                "alerts": [["status": "firing", "labels": ["alertname": "DiskFull", "instance": "db-7", "severity": "critical"],
                            "annotations": ["summary": "disk full on db-7"], "startsAt": "2026-01-05T09:00:00Z"]],
            ] as [String: Any])
            func post(_ token: String) async throws -> Int {
                try await TestClient.sharedTransport.send(TransportRequest(
                    method: "POST", url: up.runnerURL + "/hooks/alertmanager",
                    headers: [("Authorization", "Bearer \(token)")], body: body)).status
            }
            #expect(try await post("not-the-secret") == 401)
            #expect(try await post(secret) == 200)

            // An administrator (made on the data folder) lets alice into the on-call group.
            let made = await up.sandbox.run(["user", "add", "root", "--admin", "--data", up.sandbox.path("data")],
                                            environment: ["SWITCHBOARD_NEW_PASSWORD": "root password"])
            #expect(made.status == 0, "\(made.errors)")
            let (alice, _) = try await TestClient(baseURL: up.baseURL).register("alice")
            let root = try await TestClient(baseURL: up.baseURL).login("root", password: "root password")
            #expect(try await root.send("POST", "/v1/groups/oncall/invites", body: Data(#"{"user":"alice"}"#.utf8)).status < 300)
            #expect(try await alice.send("POST", "/v1/groups/oncall/join").status < 300)
            var alerts: [String] = []
            try await eventually("the alert in group:oncall") {
                let page = try await alice.get("/v1/conversations/group:oncall/messages").decode(MessagePage.self)
                alerts = page.messages.filter { $0.sender == "alerts" && $0.type != .system }.map(\.text)
                return !alerts.isEmpty
            }
            #expect(alerts.first?.hasPrefix("🔥 FIRING: DiskFull") == true, "\(alerts)")
            let members = try await alice.get("/v1/groups/oncall/members").text
            #expect(members.contains(#""username":"alerts""#) && members.contains(#""username":"helpdesk""#),
                    "both bots share the group: \(members)")
            #expect(try await up.process.stop(SIGTERM) == 0, "\(up.process.errors)")
        }
    }
}
