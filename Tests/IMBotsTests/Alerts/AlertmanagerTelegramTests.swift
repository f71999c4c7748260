import Foundation
import Synchronization
import IMProtocol
import Testing
import TestSupport

/// Alertmanager 0.25 as a Telegram sender: a `telegram_configs` receiver whose `api_url`
/// is a Switchboard server posts firing and resolved notifications into a group, through
/// the server's Telegram Bot API dialect (docs/telegram.md).
@Suite(.timeLimit(.minutes(5)))
struct AlertmanagerTelegramTests {
    @Test func aTelegramReceiverPostsFiringAndResolvedIntoAGroup() async throws {
        try await withServer { server in
            let created = try await server.localAdministrator().send(
                "POST", "/v1/admin/users", json: AdminCreateUser(username: "alertbot", password: "correct horse battery", bot: true))
            let token = try #require(try created.decode(AdminUser.self).telegramToken)
            let (alice, _) = try await server.createAccount("alice")
            let group = try await alice.send("POST", "/v1/groups", json: CreateConversationRequest(name: "oncall"))
                .decode(ConversationInfo.self)
            // A bot with a Telegram token is added by its invitation, as Telegram's bots are.
            let invited = try await alice.send("POST", "/v1/groups/oncall/invites", json: ["user": "alertbot"])
            #expect(invited.status == 201, "\(invited.text)")
            let chatID = -(1_000_000_000_000 + group.id.rawValue)
            let cluster = try await AlertmanagerCluster.start(peers: 1, receiver: """
                telegram_configs:
                  - api_url: '\(server.baseURL)'
                    bot_token: '\(token)'
                    chat_id: \(chatID)
                    send_resolved: true
                """)
            do {
                try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7"], alertname: "DiskFull"))
                let firing = try await waitForMessage(alice, containing: "Alerts Firing")
                #expect(firing.sender == "alertbot" && firing.text.contains("DiskFull") && firing.text.contains("db-7"))
                // Alertmanager's HTML parse mode is read, not shown.
                #expect(!firing.text.contains("<"), "\(firing.text)")
                try await cluster.postToAll(alerts: AlertmanagerCluster.alerts(["db-7"], alertname: "DiskFull", resolved: true))
                let resolved = try await waitForMessage(alice, containing: "Alerts Resolved")
                #expect(resolved.text.contains("DiskFull"))
            } catch {
                Issue.record("alertmanager logs:\n\(cluster.logs)")
                await cluster.stop()
                throw error
            }
            await cluster.stop()
        }
    }

    private func waitForMessage(_ person: TestClient, containing text: String) async throws -> Message {
        let found = Mutex<Message?>(nil)
        try await poll("a message containing '\(text)' in group:oncall") {
            let page = try await person.get("/v1/conversations/group:oncall/messages?limit=50").decode(MessagePage.self)
            let message = page.messages.first { $0.type == .chat && $0.text.contains(text) }
            found.withLock { $0 = message }
            return message != nil
        }
        return try #require(found.withLock { $0 })
    }
}
