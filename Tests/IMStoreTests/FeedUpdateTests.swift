import IMProtocol
import IMStore
import Testing

/// A committed batch's update carries its message entries, so parked polls can be answered
/// from it: what it yields must be exactly what reading the feed yields.
@Suite struct FeedUpdateTests {
    @Test(arguments: StoreKind.allCases) func messageEntriesOfUpdatesAreTheEventsTheFeedsHold(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let direct = try await store.directConversation(alice.id, bob.id)
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id, carol.id])
            let room = try await store.makeGroup("lobby", owner: carol.id, members: [alice.id], kind: .room)
            let before = store.committedPosition

            let updates = Shared([FeedUpdate]())
            store.observeFeeds { update in updates.update { $0.append(update) } }
            let first = try await store.send("hi bob", to: direct.id, from: alice.id, clientID: "c-1")
            _ = try await store.appendMessage(
                NewMessage(conversationID: direct.id, senderID: bob.id, text: "re: hi", replyTo: first.id))
            // Sent at once, so that several writes may share a batch.
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for index in 0..<20 {
                    tasks.addTask {
                        let (conversation, sender) = [(group.id, carol.id), (room.id, alice.id), (direct.id, bob.id)][index % 3]
                        _ = try await store.send("message \(index)", to: conversation, from: sender)
                    }
                }
                try await tasks.waitForAll()
            }

            for user in [alice, bob, carol] {
                var fromUpdates: [Event] = []
                for update in updates.value {
                    let events = try #require(update.events(for: user.id, after: before, limit: 1000))
                    fromUpdates += events
                }
                let fromFeed = try await store.events(for: user.id, after: before, limit: 1000)
                #expect(fromFeed.count > 10)
                #expect(fromUpdates == fromFeed, "\(user.user.username)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func anUpdateYieldsOnlyEntriesAfterThePositionAndAtMostTheLimit(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id])
            let updates = Shared([FeedUpdate]())
            store.observeFeeds { update in updates.update { $0.append(update) } }
            _ = try await store.send("one", to: group.id, from: alice.id)
            let update = try #require(updates.value.last)
            let position = try #require(update.latest[bob.id])
            #expect(update.events(for: bob.id, after: position - 1, limit: 10)?.map(\.position) == [position])
            #expect(update.events(for: bob.id, after: position, limit: 10) == [])
            #expect(update.events(for: bob.id, after: 0, limit: 0) == [])
            let stranger = UserID(rawValue: 999)
            #expect(update.events(for: stranger, after: 0, limit: 10) == [])
        }
    }

    @Test(arguments: StoreKind.allCases) func entriesOtherThanMessagesMustBeReadFromTheFeed(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let group = try await store.makeGroup("ops", owner: alice.id)
            let updates = Shared([FeedUpdate]())
            store.observeFeeds { update in updates.update { $0.append(update) } }
            _ = try await store.addContact(alice.id, bob.id)
            _ = try await store.addMember(
                group.id, bob.id, role: .member,
                change: MembershipChange(event: .memberJoined, notice: "bob joined", by: nil))
            #expect(updates.value.count == 2)
            for update in updates.value {
                #expect(update.events(for: alice.id, after: 0, limit: 100) == nil)
                #expect(update.events(for: bob.id, after: 0, limit: 100) == nil)
            }
        }
    }
}
