import IMProtocol
import IMStore
import Testing

/// Edits and deletions change the stored row, so every read after them (history, the
/// sessions list, feed events of the message) shows the change.
@Suite struct MessageEditStoreTests {
    @Test(arguments: StoreKind.allCases) func anEditChangesTheRowAndEveryMemberReadsItFromTheFeed(_ kind: StoreKind) async throws {
        let clock = TestClock(step: 1)
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id])
            let sent = try await store.send("draft", to: group.id, from: bob.id)
            let edited = try await store.editMessage(
                MessageEdit(conversationID: group.id, messageID: sent.id, editor: bob.id, text: "final"))
            #expect(edited.text == "final" && edited.editedAt != nil && edited.createdAt == sent.createdAt)
            #expect(try await store.messages(group.id, before: nil, limit: 1) == [edited])
            for user in [alice.id, bob.id] {
                let feed = try await store.feed(user)
                #expect(feed.last?.type == .messageEdited)
                #expect(feed.last?.message == edited)
                // The original event reads the message as it is now.
                #expect(feed.first { $0.type == .message && $0.message?.id == sent.id }?.message?.text == "final")
            }
            let refused = await outcome {
                try await store.editMessage(MessageEdit(conversationID: group.id, messageID: sent.id, editor: alice.id, text: "x"))
            }
            #expect((refused.failure as? StoreError)?.kind == "refused(not_sender)")
            let carol = try await store.makeUser("carol")
            let outsider = await outcome {
                try await store.editMessage(MessageEdit(conversationID: group.id, messageID: sent.id, editor: carol.id, text: "x"))
            }
            #expect((outsider.failure as? StoreError) == .notMember)
        }
    }

    @Test(arguments: StoreKind.allCases) func aDeletionEmptiesTheTextEverywhereAndAnAdminsLeavesANotice(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id, carol.id])
            let sent = try await store.send("spam", to: group.id, from: bob.id)
            let refused = await outcome {
                try await store.deleteMessage(
                    MessageDeletion(conversationID: group.id, messageID: sent.id, by: ActingUser(id: carol.id), notice: "n"))
            }
            #expect((refused.failure as? StoreError)?.kind == "refused(not_sender)")
            let deleted = try await store.deleteMessage(
                MessageDeletion(
                    conversationID: group.id, messageID: sent.id, by: ActingUser(id: alice.id),
                    notice: "alice deleted a message by bob"))
            #expect(deleted.text == "" && deleted.deletedAt != nil)
            let list = try await store.conversations(for: carol.id)
            #expect(list.first?.lastMessage?.text == "alice deleted a message by bob")
            let history = try await store.messages(group.id, before: nil, limit: 10)
            #expect(history.first { $0.id == sent.id }?.text == "")
            let feed = try await store.feed(carol.id)
            #expect(Array(feed.suffix(2).map(\.type)) == [.messageDeleted, .message])
            #expect(feed.contains { $0.type == .message && $0.message?.id == sent.id && $0.message?.text == "" })
            #expect(feed.suffix(2).first?.by == "alice")
        }
    }

    @Test(arguments: StoreKind.allCases) func aSendersOwnDeletionLeavesTheSessionsListWithoutTheText(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let direct = try await store.directConversation(alice.id, bob.id)
            let sent = try await store.send("oops", to: direct.id, from: alice.id)
            _ = try await store.deleteMessage(
                MessageDeletion(conversationID: direct.id, messageID: sent.id, by: ActingUser(id: alice.id), notice: "unused"))
            for user in [alice.id, bob.id] {
                let row = try #require(try await store.conversations(for: user).first)
                #expect(row.lastMessage?.id == sent.id && row.lastMessage?.text == "")
                #expect(row.unread == 0)
            }
            #expect(try await store.messages(direct.id, before: nil, limit: 10).count == 1)
        }
    }
}
