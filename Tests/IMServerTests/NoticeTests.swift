import Foundation
import IMProtocol
import Lifecycle
import TestSupport
import Testing

/// Issue 28, §3: `POST /v1/conversations/<c>/notices`, a reply only one member sees. Bots
/// and server administrators that are members send them, to members; the recipient alone
/// gets a `notice` event, nobody's history, unread count or sessions list shows it, and a
/// repeated client id answers the same notice.
@Suite(.sharedServers) struct NoticeTests {
    /// An open group with a bot, two people (`alice`, `bob`) and, outside it, `carol`.
    struct World {
        var group: String
        var groupID: ConversationID
        var bot: TestClient
        var botUser: User
        var alice: TestClient
        var aliceUser: User
        var bob: TestClient
        var bobUser: User
        var carol: TestClient
        var carolUser: User
    }

    private func world(_ server: TestServer) async throws -> World {
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, bobUser) = try await server.client.newUser("bob")
        let (carol, carolUser) = try await server.client.newUser("carol")
        let (bot, botUser) = try await server.createAccount(Names.unique("bot"), bot: true)
        let group = Names.unique("helpdesk")
        let info = try await alice.create(.group, group, join: .open)
        try await bob.join(.group, group)
        try await bot.join(.group, group)
        return World(
            group: group, groupID: info.id, bot: bot, botUser: botUser, alice: alice, aliceUser: aliceUser, bob: bob,
            bobUser: bobUser, carol: carol, carolUser: carolUser)
    }

    private func notice(
        _ client: TestClient, _ address: String, to: UserID, _ text: String, clientID: String,
        replyTo: MessageID? = nil
    ) async throws -> TestClient.Answer {
        try await client.send(
            "POST", "/v1/conversations/\(address)/notices",
            json: SendNoticeRequest(to: to, text: text, clientID: clientID, replyTo: replyTo))
    }

    @Test(arguments: TestStore.allCases)
    func onlyTheRecipientGetsTheNoticeAndNoHistoryOrCountShowsIt(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let w = try await world(server)
        let question = try await w.alice.message("group:\(w.group)", "how do I reset my password?")
        let cursors = (
            alice: try await w.alice.cursor(), bob: try await w.bob.cursor(), bot: try await w.bot.cursor(),
            carol: try await w.carol.cursor())
        let before = try await w.alice.conversations().first { $0.id == w.groupID }

        let answer = try await notice(
            w.bot, w.groupID.description, to: w.aliceUser.id, "see /help reset (only you see this)", clientID: "n-1",
            replyTo: question.id)
        expectStatus(answer, 201)
        let sent = try answer.decode(NoticeReceipt.self).notice
        #expect(sent.conversationID == w.groupID && sent.senderID == w.botUser.id && sent.sender == w.botUser.username)
        #expect(sent.recipientID == w.aliceUser.id && sent.replyTo == question.id && sent.clientID == "n-1")
        #expect(sent.text == "see /help reset (only you see this)")

        let aliceEvents = try await w.alice.events(after: cursors.alice).events
        #expect(aliceEvents.map(\.type) == [.notice])
        #expect(aliceEvents.first?.notice == sent)
        #expect(aliceEvents.first?.conversation?.id == w.groupID)
        #expect(aliceEvents.first?.conversation?.address == .group(w.group))
        for (name, client, cursor) in [("bob", w.bob, cursors.bob), ("bot", w.bot, cursors.bot), ("carol", w.carol, cursors.carol)] {
            let events = try await client.events(after: cursor).events
            #expect(events.isEmpty, "\(name) got \(events.map(\.type))")
        }
        // Not in history, not in the sessions list's last message or unread count.
        for client in [w.alice, w.bob, w.bot] {
            #expect(try await client.history("group:\(w.group)").messages.map(\.id).contains(question.id))
            #expect(try await client.history("group:\(w.group)").messages.allSatisfy { $0.text != sent.text })
        }
        let after = try await w.alice.conversations().first { $0.id == w.groupID }
        #expect(after?.unread == before?.unread && after?.lastMessage == before?.lastMessage)
        #expect(try await w.bob.conversations().first { $0.id == w.groupID }?.lastMessage?.id == question.id)
    }

    @Test(arguments: TestStore.allCases)
    func aRepeatedClientIDAnswersTheSameNoticeOnce(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let w = try await world(server)
        let cursor = try await w.bob.cursor()
        let first = try await notice(w.bot, "group:\(w.group)", to: w.bobUser.id, "welcome", clientID: "welcome-bob")
        expectStatus(first, 201)
        let again = try await notice(w.bot, "group:\(w.group)", to: w.bobUser.id, "welcome", clientID: "welcome-bob")
        expectStatus(again, 200)
        #expect(try again.decode(NoticeReceipt.self) == first.decode(NoticeReceipt.self))
        #expect(try await w.bob.events(after: cursor).events.map(\.type) == [.notice])
        // The same id for another recipient is a conflict, not a second notice; another
        // sender's ids are its own.
        expectError(
            try await notice(w.bot, "group:\(w.group)", to: w.aliceUser.id, "welcome", clientID: "welcome-bob"),
            .conflict, field: "client_id")
        let (other, _) = try await server.createAccount(Names.unique("bot"), bot: true)
        try await other.join(.group, w.group)
        expectStatus(try await notice(other, "group:\(w.group)", to: w.bobUser.id, "hello", clientID: "welcome-bob"), 201)
        #expect(try await w.bob.events(after: cursor).events.compactMap(\.notice?.text) == ["welcome", "hello"])
    }

    @Test(arguments: TestStore.allCases)
    func everyRefusalHasItsStableCode(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let w = try await world(server)
        let path = "group:\(w.group)"
        // Only bots and server administrators; people and anonymous callers are refused.
        expectError(try await notice(w.alice, path, to: w.bobUser.id, "psst", clientID: "a"), .forbidden, reason: "not_a_bot")
        expectError(try await notice(server.client, path, to: w.bobUser.id, "psst", clientID: "a"), .unauthorized)
        let (admin, _) = try await server.createAccount(Names.unique("admin"), admin: true)
        try await admin.join(.group, w.group)
        expectStatus(try await notice(admin, path, to: w.bobUser.id, "from the administrator", clientID: "a"), 201)
        // The recipient must be a member; so must the sender (an id reveals nothing: 404).
        expectError(
            try await notice(w.bot, path, to: w.carolUser.id, "psst", clientID: "b"), .forbidden,
            reason: "recipient_not_member", field: "to")
        expectError(
            try await notice(w.bot, path, to: UserID(rawValue: 999_999_999), "psst", clientID: "b"), .forbidden,
            reason: "recipient_not_member")
        let (outsider, _) = try await server.createAccount(Names.unique("bot"), bot: true)
        expectError(try await notice(outsider, path, to: w.bobUser.id, "psst", clientID: "c"), .forbidden, reason: "not_member")
        expectError(try await notice(outsider, w.groupID.description, to: w.bobUser.id, "psst", clientID: "c"), .notFound)
        expectError(try await notice(w.bot, "999999999", to: w.bobUser.id, "psst", clientID: "c"), .notFound)
        // A recipient who blocks the sender takes none of its notices.
        expectStatus(try await w.bob.send("PUT", "/v1/blocks/\(w.botUser.username)"), 201)
        expectError(try await notice(w.bot, path, to: w.bobUser.id, "psst", clientID: "d"), .forbidden, reason: "blocked")
        // The request's fields, as a message's.
        let elsewhere = try await w.carol.message("user:\(w.aliceUser.username)", "hi")
        expectError(
            try await notice(w.bot, path, to: w.aliceUser.id, "re", clientID: "e", replyTo: elsewhere.id), .invalidRequest,
            field: "reply_to")
        expectError(try await notice(w.bot, path, to: w.aliceUser.id, " ", clientID: "e"), .invalidRequest, field: "text")
        expectError(
            try await notice(w.bot, path, to: w.aliceUser.id, String(repeating: "x", count: 4_097), clientID: "e"),
            .invalidRequest, field: "text")
        expectError(
            try await notice(w.bot, path, to: w.aliceUser.id, "hi", clientID: String(repeating: "c", count: 129)),
            .invalidRequest, field: "client_id")
        expectError(
            try await w.bot.send("POST", "/v1/conversations/\(path)/notices", raw: #"{"to":"\#(w.aliceUser.id)","text":"hi"}"#),
            .invalidRequest)
        expectError(
            try await w.bot.send("POST", "/v1/conversations/\(path)/notices", raw: #"{"to":"bob","text":"hi","client_id":"f"}"#),
            .invalidRequest)
        // A muted bot says nothing, not even to one member.
        let muted = try await w.alice.send(
            "POST", "/v1/groups/\(w.group)/moderation",
            json: ModerationRequest(action: .mute, user: w.botUser.username, duration: ConfigDuration("10m")))
        expectStatus(muted, 200)
        expectError(try await notice(w.bot, path, to: w.aliceUser.id, "hi", clientID: "g"), .forbidden, reason: "muted")
    }

    @Test(arguments: TestStore.allCases)
    func noticesCountAgainstTheSendersDailyMessageQuota(_ store: TestStore) async throws {
        let time = ManualTime(wallMilliseconds: MessageQuotaTests.lateEvening)
        try await withServer(store: store, time: time, { config in config.botMessageBytesPerDay = 3_000 }) { server in
            let w = try await world(server)
            let kilobyte = String(repeating: "x", count: 1_000)
            // 1,000 bytes and 256 of overhead each: two fit in 3,000, the third does not.
            for index in 0..<2 {
                expectStatus(try await notice(w.bot, "group:\(w.group)", to: w.aliceUser.id, kilobyte, clientID: "q\(index)"), 201)
            }
            let refused = try await notice(w.bot, "group:\(w.group)", to: w.aliceUser.id, kilobyte, clientID: "q2")
            expectError(refused, .rateLimited, reason: "message_quota")
            #expect(refused.error?.retryAfter == 3_600)
            // A repeat stores nothing and is answered.
            expectStatus(try await notice(w.bot, "group:\(w.group)", to: w.aliceUser.id, kilobyte, clientID: "q1"), 200)
        }
    }
}
