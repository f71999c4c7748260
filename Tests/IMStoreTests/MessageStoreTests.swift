import IMProtocol
import IMStore
import Testing

@Suite struct MessageStoreTests {
    @Test(arguments: StoreKind.allCases) func messagesGetConsecutiveSeqsAndKeepTheirFields(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let direct = try await store.directConversation(alice.id, bob.id)
            var sent: [Message] = []
            for index in 1...3 {
                let result = try await store.appendMessage(
                    NewMessage(
                        conversationID: direct.id, senderID: index == 2 ? bob.id : alice.id, text: "message \(index)",
                        clientMessageID: "client-\(index)", replyTo: sent.last?.id))
                #expect(result.duplicate == false)
                sent.append(result.message)
            }
            #expect(sent.map(\.seq) == [1, 2, 3])
            #expect(Set(sent.map(\.id)).count == 3)
            let second = sent[1]
            #expect(second.conversationID == direct.id && second.type == .chat)
            #expect(second.sender == "bob" && second.senderID == bob.id)
            #expect(second.text == "message 2" && second.clientMessageID == "client-2")
            #expect(second.replyTo == sent[0].id)
            #expect(second.createdAt == clock.now && second.deletedAt == nil)
            #expect(try await store.messages(direct.id, before: nil, limit: 10) == sent.reversed())
            #expect(try await store.conversation(id: direct.id)?.lastSeq == 3)
        }
    }

    @Test(arguments: StoreKind.allCases) func textWithQuotesAndSQLIsStoredVerbatim(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let group = try await store.makeGroup("ops", owner: alice.id)
            let texts = [
                "O'Brien said \"hi\"",
                "'); DROP TABLE messages; --",
                "'' OR 1=1 --",
                "?, ?, ?",
                "multi\nline\twith tab, ünïcödé and 🚀",
            ]
            for text in texts {
                let message = try await store.send(text, to: group.id, from: alice.id, clientID: "id '\(text)'")
                #expect(message.text == text)
            }
            let stored = try await store.messages(group.id, before: nil, limit: 10).filter { $0.type == .chat }
            #expect(stored.map(\.text) == texts.reversed())
            #expect(stored.map(\.clientMessageID) == texts.reversed().map { "id '\($0)'" })
        }
    }

    @Test(arguments: StoreKind.allCases) func resendingWithTheSameClientIDReturnsTheFirstMessageAndWritesNothing(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let direct = try await store.directConversation(alice.id, bob.id)
            let first = try await store.appendMessage(
                NewMessage(conversationID: direct.id, senderID: alice.id, text: "hello", clientMessageID: "c-1"))
            #expect(first.duplicate == false)
            let feeds = (try await store.feed(alice.id), try await store.feed(bob.id))
            let position = store.committedPosition

            let again = try await store.appendMessage(
                NewMessage(conversationID: direct.id, senderID: alice.id, text: "hello (retry)", clientMessageID: "c-1"))
            #expect(again.duplicate)
            #expect(again.message == first.message)
            #expect(try await store.messages(direct.id, before: nil, limit: 10) == [first.message])
            #expect(try await store.conversation(id: direct.id)?.lastSeq == 1)
            #expect(try await store.feed(alice.id) == feeds.0)
            #expect(try await store.feed(bob.id) == feeds.1)
            #expect(store.committedPosition == position)

            // The same client id from another sender is a different message.
            let fromBob = try await store.appendMessage(
                NewMessage(conversationID: direct.id, senderID: bob.id, text: "hi", clientMessageID: "c-1"))
            #expect(fromBob.duplicate == false && fromBob.message.seq == 2)
            // Messages without a client id are never duplicates.
            for _ in 0..<2 {
                #expect(try await store.appendMessage(
                    NewMessage(conversationID: direct.id, senderID: alice.id, text: "hello")).duplicate == false)
            }
            #expect(try await store.conversation(id: direct.id)?.lastSeq == 4)
        }
    }

    @Test(arguments: StoreKind.allCases) func concurrentResendsWriteOneMessage(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let group = try await store.makeGroup("ops", owner: alice.id)
            let results = try await withThrowingTaskGroup(of: (message: Message, duplicate: Bool).self) { tasks in
                for _ in 0..<20 {
                    tasks.addTask {
                        try await store.appendMessage(
                            NewMessage(conversationID: group.id, senderID: alice.id, text: "once", clientMessageID: "same"))
                    }
                }
                return try await tasks.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { !$0.duplicate }.count == 1)
            #expect(Set(results.map(\.message)).count == 1)
            #expect(try await store.messages(group.id, before: nil, limit: 50).filter { $0.type == .chat }.count == 1)
            #expect(try await store.feed(alice.id).filter { $0.type == .message }.count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func appendingToAMissingConversationIsNotFound(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let error = await #expect(throws: StoreError.self) {
                try await store.send("hello", to: ConversationID(rawValue: 404), from: alice.id)
            }
            #expect(error?.kind == "notFound")
        }
    }

    @Test(arguments: StoreKind.allCases) func historyPagesNewestFirst(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let direct = try await store.directConversation(alice.id, bob.id)
            for index in 1...10 { try await store.send("m\(index)", to: direct.id, from: alice.id) }

            var pages: [[Int64]] = []
            var before: Int64?
            while true {
                let page = try await store.messages(direct.id, before: before, limit: 4)
                guard let oldest = page.last else { break }
                pages.append(page.map(\.seq))
                before = oldest.seq
            }
            #expect(pages == [[10, 9, 8, 7], [6, 5, 4, 3], [2, 1]])
            #expect(try await store.messages(direct.id, before: 6, limit: 2).map(\.text) == ["m5", "m4"])
            #expect(try await store.messages(direct.id, before: 1, limit: 5).isEmpty)
            #expect(try await store.messages(direct.id, before: nil, limit: 0).isEmpty)
            #expect(try await store.messages(ConversationID(rawValue: 999), before: nil, limit: 5).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func markReadMovesOnlyForwardUpToTheLastMessage(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let direct = try await store.directConversation(alice.id, bob.id)
            for index in 1...3 { try await store.send("m\(index)", to: direct.id, from: bob.id) }
            let bobFeed = try await store.feed(bob.id)
            func readEvents() async throws -> [Event] { try await store.feed(alice.id).filter { $0.type == .read } }

            #expect(try await store.markRead(direct.id, alice.id, seq: 2) == 2)
            var reads = try await readEvents()
            #expect(reads.count == 1)
            #expect(reads.last?.seq == 2)
            #expect(reads.last?.conversation == ConversationRef(id: direct.id, kind: .direct, address: .user("bob")))
            #expect(reads.last?.message == nil)

            // Backwards, or to the same place: no change, no event.
            #expect(try await store.markRead(direct.id, alice.id, seq: 1) == 2)
            #expect(try await store.markRead(direct.id, alice.id, seq: 2) == 2)
            #expect(try await store.markRead(direct.id, alice.id, seq: -5) == 2)
            #expect(try await readEvents().count == 1)

            // Past the end: clamped to the last message.
            #expect(try await store.markRead(direct.id, alice.id, seq: 99) == 3)
            reads = try await readEvents()
            #expect(reads.map(\.seq) == [2, 3])
            #expect(try await store.markRead(direct.id, alice.id, seq: 99) == 3)
            #expect(try await readEvents().count == 2)
            #expect(try await store.membership(direct.id, alice.id)?.lastReadSeq == 3)

            // Only the reader's own feed hears of it.
            #expect(try await store.feed(bob.id) == bobFeed)
        }
    }

    @Test(arguments: StoreKind.allCases) func markReadByANonMemberIsRefused(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let mallory = try await store.makeUser("mallory")
            let group = try await store.makeGroup("ops", owner: alice.id)
            let error = await #expect(throws: StoreError.self) {
                try await store.markRead(group.id, mallory.id, seq: 1)
            }
            #expect(error?.kind == "notMember")
            #expect(try await store.feed(mallory.id).isEmpty)
        }
    }
}
