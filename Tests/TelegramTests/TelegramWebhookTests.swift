import Foundation
import IMClient
import IMProtocol
import IMServer
import Testing
import TestSupport

/// `setWebhook`, `deleteWebhook` and `getWebhookInfo`: updates posted to the bot's URL in
/// order, with its secret token, retried until it answers 2xx.
@Suite(.timeLimit(.minutes(3)))
struct TelegramWebhookTests {
    /// Webhooks on loopback, as these tests need, are allowed by the server's setting only.
    static func allowingLoopback(_ config: inout ServerConfiguration) {
        config.telegram.webhookAllow = (try? AddressAllowList(["127.0.0.1"])) ?? AddressAllowList()
    }

    @Test func updatesArePostedInOrderWithTheSecretAndRetried() async throws {
        let catcher = try WebhookCatcher(failing: 2)
        defer { Task { await catcher.stop() } }
        try await withServer(Self.allowingLoopback) { server in
            let bot = try await TelegramBot.create("hooked", on: server)
            let alice = try await Person("alice", on: server)
            try await bot.ok("setWebhook", ["url": catcher.url, "secret_token": "s3cret-token_1", "allowed_updates": ["message"]])
            // While a webhook is set, getUpdates is refused.
            let polled = try await bot.call("getUpdates")
            #expect(polled.status == 409 && polled.description.contains("webhook is active"), "\(polled.text)")
            try await alice.send("first", to: "user:hooked")
            try await alice.send("second", to: "user:hooked")
            try await eventually("both updates taken", hangGuard: .seconds(60)) { catcher.updates.count >= 4 }
            // Two refusals (500), then both in order.
            let texts = catcher.updates.compactMap { ($0["message"] as? [String: Any])?["text"] as? String }
            #expect(texts == ["first", "first", "first", "second"], "\(texts)")
            let ids = catcher.updates.compactMap { $0["update_id"] as? Int64 }
            #expect(ids[2] < ids[3])
            #expect(catcher.requests.allSatisfy {
                $0.headers["X-Telegram-Bot-Api-Secret-Token"] == "s3cret-token_1"
                    && $0.headers["Content-Type"] == "application/json" && $0.method == .post
            })
            // Confirmed once the webhook's 200 is in.
            var info: [String: Any] = [:]
            try await eventually("nothing pending", hangGuard: .seconds(60)) {
                info = try await bot.ok("getWebhookInfo").resultObject
                return info["pending_update_count"] as? Int == 0
            }
            #expect(info["url"] as? String == catcher.url)
            #expect((info["last_error_message"] as? String)?.contains("500") == true, "\(info)")
            #expect(info["allowed_updates"] as? [String] == ["message"])
            // Removed: updates wait for getUpdates again.
            try await bot.ok("deleteWebhook")
            #expect((try await bot.ok("getWebhookInfo").resultObject["url"] as? String) == "")
            try await alice.send("third", to: "user:hooked")
            let polledAgain = try await bot.ok("getUpdates").resultList
            #expect(polledAgain.compactMap { ($0["message"] as? [String: Any])?["text"] as? String } == ["third"])
            #expect(catcher.updates.count == 4)
        }
    }

    @Test func aBotCutOffIsPostedNothingMore() async throws {
        let catcher = try WebhookCatcher()
        defer { Task { await catcher.stop() } }
        try await withServer(Self.allowingLoopback) { server in
            let bot = try await TelegramBot.create("hooked", on: server)
            let alice = try await Person("alice", on: server)
            let admin = try await server.localAdministrator()
            try await bot.ok("setWebhook", ["url": catcher.url])
            try await alice.send("first", to: "user:hooked")
            try await eventually("the first update", hangGuard: .seconds(60)) { catcher.updates.count == 1 }
            // Suspended: its token ends, nothing is posted while it is.
            #expect(try await admin.send("POST", "/v1/admin/users/hooked/suspend").status == 200)
            try await alice.send("while suspended", to: "user:hooked")
            #expect(try await admin.send("POST", "/v1/admin/users/hooked/unsuspend").status == 200)
            // A new token: the webhook kept its place and gets what waited.
            let reissued = try await admin.send("POST", "/v1/admin/users/hooked/telegram-token")
            let token = try #require(try reissued.decode(AdminUser.self).telegramToken)
            try await eventually("the update that waited", hangGuard: .seconds(60)) { catcher.updates.count == 2 }
            let texts = catcher.updates.compactMap { ($0["message"] as? [String: Any])?["text"] as? String }
            #expect(texts == ["first", "while suspended"])
            // Revoked: the webhook goes with the token; what comes next waits for getUpdates.
            #expect(try await admin.send("DELETE", "/v1/admin/users/hooked/telegram-token").status == 204)
            try await alice.send("after the revocation", to: "user:hooked")
            let last = try await admin.send("POST", "/v1/admin/users/hooked/telegram-token")
            let again = TelegramBot(server: server, user: bot.user, token: try #require(try last.decode(AdminUser.self).telegramToken))
            #expect((try await again.ok("getWebhookInfo").resultObject["url"] as? String) == "")
            let pending = try await again.ok("getUpdates").resultList
            #expect(pending.compactMap { ($0["message"] as? [String: Any])?["text"] as? String } == ["after the revocation"])
            #expect(catcher.updates.count == 2)
            _ = token
        }
    }

    @Test func aWebhookOnAnAddressThatIsNotPublicNeedsTheServersAllowance() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("hooked", on: server)
            for url in ["http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://[::1]:9/hook", "http://169.254.169.254/"] {
                let refused = try await bot.call("setWebhook", ["url": url])
                #expect(refused.status == 400 && refused.description.hasPrefix("Bad Request: bad webhook"), "\(url): \(refused.text)")
            }
            let notURL = try await bot.call("setWebhook", ["url": "ftp://example.com/x"])
            #expect(notURL.status == 400)
            let badSecret = try await bot.call("setWebhook", ["url": "https://example.com/x", "secret_token": "no spaces"])
            #expect(badSecret.status == 400 && badSecret.description.contains("secret token"))
            // A name that resolves to loopback is refused when connected to, not posted to.
            try await bot.ok("setWebhook", ["url": "http://localhost:9/hook"])
            let alice = try await Person("alice", on: server)
            try await alice.send("hello", to: "user:hooked")
            try await eventually("the refusal recorded", hangGuard: .seconds(30)) {
                let info = try await bot.ok("getWebhookInfo").resultObject
                return (info["last_error_message"] as? String)?.contains("loopback") == true
            }
        }
    }

    @Test func aWebhookSurvivesARestartAndDropsPendingUpdatesWhenAsked() async throws {
        let catcher = try WebhookCatcher()
        defer { Task { await catcher.stop() } }
        let server = try await RestartableServer(Self.allowingLoopback)
        do {
            let bot = try await TelegramBot.create("hooked", on: server.server)
            let alice = try await Person("alice", on: server.server)
            try await alice.send("before the webhook", to: "user:hooked")
            try await bot.ok("setWebhook", ["url": catcher.url, "drop_pending_updates": true])
            let restarted = try await server.restart(Self.allowingLoopback)
            let again = try await restarted.client.login("alice")
            let sent = try await again.send(
                "POST", "/v1/conversations/user:hooked/messages", json: SendMessageRequest(text: "after the restart"))
            #expect(sent.status == 201)
            try await eventually("the update after the restart", hangGuard: .seconds(60)) { !catcher.updates.isEmpty }
            let texts = catcher.updates.compactMap { ($0["message"] as? [String: Any])?["text"] as? String }
            #expect(texts == ["after the restart"], "\(texts)")
        } catch {
            await server.finish()
            throw error
        }
        await server.finish()
    }
}
