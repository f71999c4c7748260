import Foundation
import IMProtocol
import Testing
import TestSupport

/// What the dialect keeps on the server (`telegram_bots`), on both stores: the
/// confirmed offset, the webhook and the settings; and a bot account's deletion takes
/// its row.
@Suite(.timeLimit(.minutes(3)))
struct TelegramStoreTests {
    @Test(arguments: TestStore.allCases)
    func theOffsetTheWebhookAndTheSettingsAreKept(_ store: TestStore) async throws {
        try await withServer(store: store) { server in
            let bot = try await TelegramBot.create("keeper", on: server)
            let alice = try await Person("alice", on: server)
            try await alice.send("one", to: "user:keeper")
            try await alice.send("two", to: "user:keeper")
            let updates = try await bot.ok("getUpdates", ["allowed_updates": ["message"]]).resultList
            #expect(updates.count == 2)
            let first = try #require(updates.first?["update_id"] as? Int64)
            #expect(try await bot.ok("getUpdates", ["offset": first + 1]).resultList.count == 1)
            // Going back is no undoing a confirmation.
            #expect(try await bot.ok("getUpdates", ["offset": first]).resultList.count == 1)
            try await bot.ok("setMyCommands", ["commands": [["command": "go", "description": "go on"]]])
            try await bot.ok("setWebhook", ["url": "https://bots.example/hook", "secret_token": "abc"])
            let info = try await bot.ok("getWebhookInfo").resultObject
            #expect(info["url"] as? String == "https://bots.example/hook" && info["allowed_updates"] as? [String] == ["message"])
            try await bot.ok("deleteWebhook")
            #expect(try await bot.ok("getMyCommands").resultList.compactMap { $0["command"] as? String } == ["go"])
            // The account's deletion takes its row (and ends its token).
            let admin = try await server.localAdministrator()
            #expect(try await admin.send("DELETE", "/v1/admin/users/keeper").status == 204)
            #expect(try await bot.call("getMe").status == 401)
        }
    }
}
