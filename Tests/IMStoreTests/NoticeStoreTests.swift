import Foundation
import IMProtocol
import IMStore
import Testing

/// `NoticeStore` (schema version 9) on both engines: a notice is one event of its
/// recipient's feed, in nobody's history or sessions list, kept across a reopen, answered
/// again for a repeated client id, and gone with the feed's events.
@Suite struct NoticeStoreTests {
    private func notice(
        _ store: any ServerStore, in conversation: ConversationID, from sender: UserID, to recipient: UserID,
        _ text: String, clientID: String, replyTo: MessageID? = nil
    ) async throws -> (notice: Notice, duplicate: Bool) {
        try await store.sendNotice(
            NewNotice(
                conversationID: conversation, senderID: sender, recipientID: recipient, text: text, clientID: clientID,
                replyTo: replyTo))
    }

    @Test(arguments: StoreKind.allCases)
    func aNoticeIsAnEventOfItsRecipientAloneAndOutlivesAReopen(_ kind: StoreKind) async throws {
        let clock = TestClock(step: 1)
        try await StoreFixture.with(kind) { fixture in
            let store = try await fixture.open(clock: clock)
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let bot = try await store.makeUser("helper", isBot: true)
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id, bot.id])
            let question = try await store.send("help?", to: group.id, from: alice.id)
            let feeds = (alice: try await store.feed(alice.id), bob: try await store.feed(bob.id), bot: try await store.feed(bot.id))
            let listed = try await store.conversations(for: alice.id)

            let (sent, duplicate) = try await notice(
                store, in: group.id, from: bot.id, to: alice.id, "try /help", clientID: "n-1", replyTo: question.id)
            #expect(!duplicate)
            #expect(sent.sender == "helper" && sent.recipientID == alice.id && sent.replyTo == question.id)
            let aliceFeed = try await store.feed(alice.id)
            #expect(aliceFeed.count == feeds.alice.count + 1)
            let event = try #require(aliceFeed.last)
            #expect(event.type == .notice && event.notice == sent && event.conversation?.id == group.id)
            #expect(event.message == nil)
            #expect(try await store.feed(bob.id) == feeds.bob)
            #expect(try await store.feed(bot.id) == feeds.bot)
            #expect(try await store.messages(group.id, before: nil, limit: 100).allSatisfy { $0.text != "try /help" })
            #expect(try await store.conversations(for: alice.id) == listed)
            await store.close()

            try await closing(try await fixture.open(clock: clock)) { reopened in
                #expect(try await reopened.feed(alice.id) == aliceFeed)
                let again = try await notice(
                    reopened, in: group.id, from: bot.id, to: alice.id, "try /help", clientID: "n-1", replyTo: question.id)
                #expect(again.duplicate && again.notice == sent)
                #expect(try await reopened.feed(alice.id) == aliceFeed)
                // Another sender's client ids are its own.
                let other = try await notice(reopened, in: group.id, from: alice.id, to: bob.id, "psst", clientID: "n-1")
                #expect(!other.duplicate && other.notice.id != sent.id)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aNoticeGoesWithTheFeedsEvents(_ kind: StoreKind) async throws {
        let clock = TestClock(step: 1)
        try await withStore(kind, clock: clock) { store, fixture in
            let alice = try await store.makeUser("alice")
            let bot = try await store.makeUser("helper", isBot: true)
            let direct = try await store.directConversation(alice.id, bot.id)
            try await store.send("hi", to: direct.id, from: alice.id)
            _ = try await notice(store, in: direct.id, from: bot.id, to: alice.id, "noted", clientID: "n-1")
            #expect(try fixture.count("SELECT count(*) FROM notices") == 1)
            clock.advance(milliseconds: 1_000)
            _ = try await store.pruneEvents(before: clock.now)
            #expect(try await store.feed(alice.id).isEmpty)
            #expect(try fixture.count("SELECT count(*) FROM notices") == 0)
            // Past retention its client id is free again: a repeat is a new notice.
            let later = try await notice(store, in: direct.id, from: bot.id, to: alice.id, "noted", clientID: "n-1")
            #expect(!later.duplicate)
            #expect(try await store.feed(alice.id).compactMap(\.notice) == [later.notice])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func whoMaySendANoticeToWhomIsCheckedInItsTransaction(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let bot = try await store.makeUser("helper", isBot: true)
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id, bot.id])
            let elsewhere = try await store.send("elsewhere", to: try await store.directConversation(alice.id, carol.id).id,
                                                 from: carol.id)
            let cases: [(String, UserID, UserID, MessageID?)] = [
                ("notMember", carol.id, alice.id, nil),
                ("refused(recipient_not_member)", bot.id, carol.id, nil),
                ("refused(recipient_not_member)", bot.id, UserID(rawValue: 999_999), nil),
                ("invalidReference", bot.id, alice.id, elsewhere.id),
            ]
            for (index, (expected, sender, recipient, replyTo)) in cases.enumerated() {
                let error = await #expect(throws: StoreError.self) {
                    try await notice(store, in: group.id, from: sender, to: recipient, "x", clientID: "c\(index)", replyTo: replyTo)
                }
                #expect(error?.kind == expected)
            }
            _ = try await store.block(alice.id, bot.id)
            let blocked = await #expect(throws: StoreError.self) {
                try await notice(store, in: group.id, from: bot.id, to: alice.id, "x", clientID: "b")
            }
            #expect(blocked?.kind == "refused(blocked)")
            _ = try await store.moderate(
                ModerationAct(conversationID: group.id, by: ActingUser(id: alice.id), action: .mute, target: bot.id,
                              notice: "helper was muted"))
            let muted = await #expect(throws: StoreError.self) {
                try await notice(store, in: group.id, from: bot.id, to: bob.id, "x", clientID: "m")
            }
            #expect(muted?.kind == "muted")
            // Nothing of it reached a feed.
            #expect(try await store.feed(alice.id).allSatisfy { $0.type != .notice })
            #expect(try await store.feed(bob.id).allSatisfy { $0.type != .notice })
        }
    }

    @Test func theSameClientIDSentThroughTwoNodesAtOnceWritesOneNotice() async throws {
        try await PostgresNodes.with(2) { nodes in
            let (a, b) = (nodes.stores[0], nodes.stores[1])
            let alice = try await a.makeUser("alice")
            let bot = try await a.makeUser("helper", isBot: true)
            let group = try await a.makeGroup("desk", owner: alice.id, members: [bot.id])
            let results = try await withThrowingTaskGroup(of: (notice: Notice, duplicate: Bool).self) { tasks in
                for index in 0..<10 {
                    let store = index.isMultiple(of: 2) ? a : b
                    tasks.addTask {
                        try await notice(store, in: group.id, from: bot.id, to: alice.id, "once", clientID: "n-1")
                    }
                }
                return try await tasks.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.notice)).count == 1)
            #expect(results.filter { !$0.duplicate }.count == 1)
            #expect(try await a.feed(alice.id).compactMap(\.notice) == [results[0].notice])
            #expect(try await b.feed(alice.id).compactMap(\.notice) == [results[0].notice])
        }
    }
}
