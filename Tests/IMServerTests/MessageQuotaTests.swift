import Foundation
import IMProtocol
import IMServer
import Lifecycle
import TestSupport
import Testing

/// Issue 25, §4 "Message storage has no quota": each account may store so many bytes of
/// messages per UTC day (text and 256 bytes per message or edit); past it sends and edits
/// answer 429 `message_quota` until the next day, and nothing is stored.
@Suite struct MessageQuotaTests {
    /// 2026-01-05 23:00 UTC: the next UTC day begins in an hour.
    static let lateEvening: Int64 = 20_458 * 86_400_000 + 23 * 3_600_000

    private func post(_ client: TestClient, _ address: String, _ text: String, clientID: String? = nil) async throws
        -> TestClient.Answer
    {
        try await client.send(
            "POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: text, clientMessageID: clientID))
    }

    @Test(arguments: TestStore.allCases)
    func anAccountPastItsDailyQuotaIsRefusedUntilTheNextUTCDay(_ store: TestStore) async throws {
        let time = ManualTime(wallMilliseconds: Self.lateEvening)
        try await withServer(store: store, time: time, { config in
            config.messageBytesPerDay = 10_000
            config.botMessageBytesPerDay = 40_000
        }) { server in
            let (alice, aliceUser) = try await server.client.newUser("alice")
            let (bob, bobUser) = try await server.client.newUser("bob")
            let address = "user:\(bobUser.username)"
            let kilobyte = String(repeating: "x", count: 1_000)
            // 1,000 bytes and 256 of overhead each: seven fit in 10,000, the eighth does not.
            var sent: [Message] = []
            for index in 0..<7 {
                let answer = try await post(alice, address, kilobyte, clientID: "q\(index)")
                expectStatus(answer, 201)
                sent.append(try answer.decode(Message.self))
            }
            let refused = try await post(alice, address, kilobyte)
            expectError(refused, .rateLimited, reason: "message_quota")
            #expect(refused.error?.retryAfter == 3_600 && refused.header("Retry-After") == "3600")
            #expect(refused.error?.message.contains("10000 bytes") == true)
            // An edit stores text too; a resend of what was stored already stores nothing.
            expectError(
                try await alice.send(
                    "PATCH", "/v1/conversations/\(address)/messages/\(sent[0].id)",
                    json: EditMessageRequest(text: kilobyte + "!")),
                .rateLimited, reason: "message_quota")
            expectStatus(try await post(alice, address, kilobyte, clientID: "q3"), 200)
            #expect(try await bob.history("user:\(aliceUser.username)", limit: 100).messages.count == 7)
            // The quota is the account's: bob writes on, and a bot has its own, larger one.
            expectStatus(try await post(bob, "user:\(aliceUser.username)", kilobyte), 201)
            let (bot, _) = try await server.createAccount(Names.unique("alertbot"), bot: true)
            for _ in 0..<20 { expectStatus(try await post(bot, address, kilobyte), 201) }

            // A new UTC day, a new quota.
            time.advance(by: .seconds(3_600))
            expectStatus(try await post(alice, address, kilobyte), 201)
        }
    }

    @Test func theQuotaIsConfiguredAndCheckedAtStart() throws {
        var file = ServerFileConfig()
        file.messageBytesPerDay = 1 << 20
        file.botMessageBytesPerDay = 64 << 20
        let config = try file.configuration()
        #expect(config.messageQuota(isBot: false).bytesPerDay == 1 << 20)
        #expect(config.messageQuota(isBot: true).bytesPerDay == 64 << 20)
        #expect(ServerConfiguration().messageQuota(isBot: false).bytesPerDay == 16 << 20)
        #expect(ServerConfiguration().messageQuota(isBot: true).bytesPerDay == 256 << 20)
        file.messageBytesPerDay = 1_000
        #expect(throws: ServerFileConfig.Invalid.self) { try file.configuration() }
    }
}
