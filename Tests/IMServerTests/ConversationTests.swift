import Foundation
import IMProtocol
import Lifecycle
import TestSupport
import Testing

@Suite(.sharedServers) struct ConversationTests {
    @Test(arguments: TestStore.allCases) func sessionsListPutsUnreadFirstThenMostRecent(_ store: TestStore) async throws {
        // The server's own clock, moved between steps so that "most recent" is never a tie.
        let time = ManualTime()
        try await withServer(store: store, time: time) { server in
            let (alice, aliceUser) = try await server.client.newUser("alice")
            let (bob, bobUser) = try await server.client.newUser("bob")
            let (_, carolUser) = try await server.client.newUser("carol")
            let group = Names.unique("team")

            try await alice.message("user:\(carolUser.username)", "hi carol")
            time.advance(by: .seconds(1))
            try await bob.message("user:\(aliceUser.username)", "one")
            let two = try await bob.message("user:\(aliceUser.username)", "two")
            time.advance(by: .seconds(1))
            try await alice.create(.group, group)
            try await alice.message("group:\(group)", "latest")
            time.advance(by: .seconds(1))

            var list = try await alice.conversations()
            #expect(list.map(\.address) == [.user(bobUser.username), .group(group), .user(carolUser.username)])
            #expect(list.map(\.unread) == [2, 0, 0])
            let direct = try #require(list.first)
            #expect(direct.kind == .direct)
            #expect(direct.displayName == bobUser.nickname)
            #expect(direct.lastMessage?.text == "two")
            #expect(list[1].kind == .group)
            #expect(list[1].lastMessage?.text == "latest")

            // Once read, the conversation with bob falls back to its place by time.
            let read = try await alice.send("POST", "/v1/conversations/user:\(bobUser.username)/read", json: ReadMarker(seq: two.seq))
            expectStatus(read, 200)
            list = try await alice.conversations()
            #expect(list.map(\.address) == [.group(group), .user(bobUser.username), .user(carolUser.username)])
            #expect(list.map(\.unread) == [0, 0, 0])
        }
    }

    @Test(arguments: TestStore.allCases) func directConversationsShowTheOtherUserFromEachSide(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, bobUser) = try await server.client.newUser("bob")
        expectStatus(try await bob.send("PATCH", "/v1/me", json: ProfileUpdate(nickname: "Bobby", avatarURL: "https://example.com/b.png")), 200)
        try await alice.message("user:\(bobUser.username)", "hello")

        let mine = try #require(try await alice.conversations().first)
        #expect(mine.address == .user(bobUser.username))
        #expect(mine.displayName == "Bobby")
        #expect(mine.avatarURL == "https://example.com/b.png")
        let theirs = try #require(try await bob.conversations().first)
        #expect(theirs.id == mine.id)
        #expect(theirs.address == .user(aliceUser.username))
        #expect(theirs.displayName == aliceUser.nickname)
        #expect(theirs.unread == 1)
    }

    @Test(arguments: TestStore.allCases) func aDirectConversationAppearsOnlyOnceUsed(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("alice")
        let (_, bobUser) = try await server.client.newUser("bob")
        expectStatus(try await alice.get("/v1/conversations/user:\(bobUser.username)/messages"), 200)
        #expect(try await alice.conversations().isEmpty)
        expectError(try await alice.get("/v1/conversations/user:\(bobUser.username)"), .notFound)
    }

    @Test(arguments: TestStore.allCases) func oneConversationByIdAndByAddressIsTheSame(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, bobUser) = try await server.client.newUser("bob")
        let sent = try await bob.message("user:\(aliceUser.username)", "ping")
        let byAddress = try await alice.get("/v1/conversations/user:\(bobUser.username.uppercased())")
        expectStatus(byAddress, 200)
        let byID = try await alice.get("/v1/conversations/\(sent.conversationID)")
        expectStatus(byID, 200)
        let conversation = try byAddress.decode(Conversation.self)
        #expect(try byID.decode(Conversation.self) == conversation)
        #expect(conversation.id == sent.conversationID)
        #expect(conversation.unread == 1)
        #expect(conversation.lastMessage?.id == sent.id)
    }

    @Test(arguments: TestStore.allCases) func historyPagesNewestFirstWithNextBefore(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("pager")
        let (_, bobUser) = try await server.client.newUser("bob")
        let address = "user:\(bobUser.username)"
        for index in 1...25 { try await alice.message(address, "message \(index)") }

        let first = try await alice.history(address, limit: 10)
        #expect(first.messages.map(\.seq) == Array((16...25).reversed()))
        #expect(first.messages.first?.text == "message 25")
        #expect(first.nextBefore == 16)
        let second = try await alice.history(address, before: first.nextBefore, limit: 10)
        #expect(second.messages.map(\.seq) == Array((6...15).reversed()))
        #expect(second.nextBefore == 6)
        let last = try await alice.history(address, before: second.nextBefore, limit: 10)
        #expect(last.messages.map(\.seq) == Array((1...5).reversed()))
        #expect(last.nextBefore == nil)

        let defaultPage = try await alice.history(address)
        #expect(defaultPage.messages.count == 20)
    }

    @Test(arguments: TestStore.allCases) func aFullLastPageHasNoNextBefore(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("pager")
        let (_, bobUser) = try await server.client.newUser("bob")
        let address = "user:\(bobUser.username)"
        for index in 1...4 { try await alice.message(address, "m\(index)") }
        let first = try await alice.history(address, limit: 2)
        #expect(first.nextBefore == 3)
        let second = try await alice.history(address, before: 3, limit: 2)
        #expect(second.messages.map(\.seq) == [2, 1])
        #expect(second.nextBefore == nil)
    }

    @Test(arguments: TestStore.allCases) func sendAnswers201WithTheStoredMessage(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("sender")
        let group = Names.unique("g")
        try await alice.create(.group, group)
        let answer = try await alice.send(
            "POST", "/v1/conversations/group:\(group)/messages", json: SendMessageRequest(text: "line one\nline two\ttab"))
        expectStatus(answer, 201)
        let message = try answer.decode(Message.self)
        #expect(message.type == .chat)
        #expect(message.sender == aliceUser.username)
        #expect(message.senderID == aliceUser.id)
        #expect(message.text == "line one\nline two\ttab")
        #expect(message.seq == 2)  // after the "created the group" notice
        #expect(try await alice.history("group:\(group)").messages.first == message)
    }

    @Test(arguments: TestStore.allCases) func resendingWithTheSameClientMessageIDReturnsTheFirstMessage(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("retry")
        let (_, bobUser) = try await server.client.newUser("bob")
        let address = "user:\(bobUser.username)"
        let request = SendMessageRequest(text: "only once", clientMessageID: "c-1")
        let first = try await alice.send("POST", "/v1/conversations/\(address)/messages", json: request)
        expectStatus(first, 201)
        let again = try await alice.send("POST", "/v1/conversations/\(address)/messages", json: request)
        expectStatus(again, 200)
        #expect(try again.decode(Message.self) == first.decode(Message.self))
        // Even with different text, the id decides.
        let changed = try await alice.send(
            "POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: "other", clientMessageID: "c-1"))
        expectStatus(changed, 200)
        #expect(try changed.decode(Message.self).text == "only once")
        #expect(try await alice.history(address).messages.map(\.text) == ["only once"])
    }

    @Test(arguments: TestStore.allCases) func aClientMessageIDUsedInAnotherConversationIsAConflict(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("reuse")
        let (_, bobUser) = try await server.client.newUser("bob")
        let (_, carolUser) = try await server.client.newUser("carol")
        try await alice.message("user:\(bobUser.username)", "to bob", clientID: "same")
        let answer = try await alice.send(
            "POST", "/v1/conversations/user:\(carolUser.username)/messages",
            json: SendMessageRequest(text: "to carol", clientMessageID: "same"))
        expectError(answer, .conflict, field: "client_msg_id")
        #expect(try await alice.history("user:\(carolUser.username)").messages.isEmpty)
    }

    @Test(arguments: TestStore.allCases) func twoSendersMayUseTheSameClientMessageID(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("a")
        let (bob, _) = try await server.client.newUser("b")
        let group = Names.unique("g")
        try await alice.create(.group, group, join: .open)
        try await bob.join(.group, group)
        let first = try await alice.message("group:\(group)", "from alice", clientID: "x")
        let second = try await bob.message("group:\(group)", "from bob", clientID: "x")
        #expect(first.id != second.id)
    }

    @Test(arguments: TestStore.allCases) func replyToMustNameAMessageOfTheSameConversation(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("replier")
        let (_, bobUser) = try await server.client.newUser("bob")
        let (_, carolUser) = try await server.client.newUser("carol")
        let original = try await alice.message("user:\(bobUser.username)", "question")
        let elsewhere = try await alice.message("user:\(carolUser.username)", "other")

        let reply = try await alice.message("user:\(bobUser.username)", "answer", replyTo: original.id)
        #expect(reply.replyTo == original.id)

        let wrong = try await alice.send(
            "POST", "/v1/conversations/user:\(bobUser.username)/messages",
            json: SendMessageRequest(text: "bad", replyTo: elsewhere.id))
        expectError(wrong, .invalidRequest, field: "reply_to")
        let missing = try await alice.send(
            "POST", "/v1/conversations/user:\(bobUser.username)/messages",
            json: SendMessageRequest(text: "bad", replyTo: MessageID(rawValue: Int64.max)))
        expectError(missing, .invalidRequest, field: "reply_to")
        let notAnID = try await alice.send(
            "POST", "/v1/conversations/user:\(bobUser.username)/messages", raw: #"{"text":"bad","reply_to":"abc"}"#)
        expectError(notAnID, .invalidRequest, field: "reply_to")
        #expect(try await alice.history("user:\(bobUser.username)").messages.count == 2)
    }

    @Test(arguments: TestStore.allCases) func readMarkersClearUnreadAndStopAtTheLastMessage(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("writer")
        let (bob, bobUser) = try await server.client.newUser("reader")
        for index in 1...3 { try await alice.message("user:\(bobUser.username)", "m\(index)") }
        let address = "user:\(aliceUser.username)"
        #expect(try await bob.get("/v1/conversations/\(address)").decode(Conversation.self).unread == 3)

        let cursor = try await bob.cursor()
        let partial = try await bob.send("POST", "/v1/conversations/\(address)/read", json: ReadMarker(seq: 2))
        expectStatus(partial, 200)
        #expect(try partial.decode(ReadMarker.self).seq == 2)
        var conversation = try await bob.get("/v1/conversations/\(address)").decode(Conversation.self)
        #expect(conversation.unread == 1)
        #expect(conversation.lastReadSeq == 2)

        let beyond = try await bob.send("POST", "/v1/conversations/\(address)/read", json: ReadMarker(seq: 99))
        #expect(try beyond.decode(ReadMarker.self).seq == 3)
        // A marker never moves back.
        let back = try await bob.send("POST", "/v1/conversations/\(address)/read", json: ReadMarker(seq: 1))
        #expect(try back.decode(ReadMarker.self).seq == 3)
        conversation = try await bob.get("/v1/conversations/\(address)").decode(Conversation.self)
        #expect(conversation.unread == 0)

        // The reader's other clients learn of it; the writer does not.
        let events = try await bob.events(after: cursor).events
        #expect(events.map(\.type) == [.read, .read])
        #expect(events.map(\.seq) == [2, 3])
        #expect(events.first?.conversation?.address == .user(aliceUser.username))
    }

    @Test(arguments: TestStore.allCases) func ownMessagesAreNotUnread(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("self")
        let (_, bobUser) = try await server.client.newUser("bob")
        try await alice.message("user:\(bobUser.username)", "mine")
        #expect(try await alice.conversations().first?.unread == 0)
    }

    @Test(arguments: TestStore.allCases) func sendingToAnUnknownUserGroupOrRoomIsNotFound(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("lost")
        for address in ["user:\(Names.unique("ghost"))", "group:\(Names.unique("ghost"))", "room:\(Names.unique("ghost"))", "999999999"] {
            let answer = try await alice.send(
                "POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: "anyone?"))
            expectError(answer, .notFound)
        }
    }

    @Test(arguments: TestStore.allCases) func aQuoteInAMessageIsStoredAsIs(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("quoter")
        let (_, bobUser) = try await server.client.newUser("bob")
        let text = #"it's "quoted"; DROP TABLE messages; -- 😀 ünïcødé"#
        try await alice.message("user:\(bobUser.username)", text)
        #expect(try await alice.history("user:\(bobUser.username)").messages.first?.text == text)
    }
}
