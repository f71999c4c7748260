import IMProtocol
import IMStore
import Testing

@Suite struct EventStoreTests {
    @Test(arguments: StoreKind.allCases) func eachFeedHoldsOnlyItsUsersEventsAddressedFromTheirSide(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let direct = try await store.directConversation(alice.id, bob.id)
            let toBob = try await store.send("hi bob", to: direct.id, from: alice.id)
            let toAlice = try await store.send("hi alice", to: direct.id, from: bob.id)
            let group = try await store.makeGroup("ops", owner: alice.id, members: [carol.id])
            let inGroup = try await store.send("hi ops", to: group.id, from: carol.id)

            let aliceFeed = try await store.feed(alice.id)
            #expect(aliceFeed.map(\.type) == [.message, .message, .memberJoined, .memberJoined, .message])
            #expect(aliceFeed.compactMap(\.message?.id).contains(toBob.id))
            let aliceDirect = aliceFeed.filter { $0.conversation?.id == direct.id }
            #expect(aliceDirect.map(\.message) == [toBob, toAlice])
            #expect(aliceDirect.allSatisfy {
                $0.conversation == ConversationRef(id: direct.id, kind: .direct, address: .user("bob"))
            })
            let aliceGroup = aliceFeed.filter { $0.conversation?.id == group.id }
            #expect(aliceGroup.allSatisfy {
                $0.conversation == ConversationRef(id: group.id, kind: .group, address: .group("ops"))
            })
            #expect(aliceGroup.last?.message == inGroup)

            let bobFeed = try await store.feed(bob.id)
            #expect(bobFeed.map(\.message) == [toBob, toAlice])
            #expect(bobFeed.allSatisfy {
                $0.conversation == ConversationRef(id: direct.id, kind: .direct, address: .user("alice"))
            })
            // A message is one event, at the same position in both feeds.
            #expect(bobFeed.map(\.position) == aliceDirect.map(\.position))

            let carolFeed = try await store.feed(carol.id)
            #expect(carolFeed.map(\.type) == [.memberJoined, .message])
            #expect(carolFeed.allSatisfy { $0.conversation?.id == group.id })

            for feed in [aliceFeed, bobFeed, carolFeed] {
                #expect(zip(feed, feed.dropFirst()).allSatisfy { $0.position < $1.position })
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aFeedPagesByPositionWithinTheLimit(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let direct = try await store.directConversation(alice.id, bob.id)
            for index in 1...7 { try await store.send("m\(index)", to: direct.id, from: bob.id) }
            let whole = try await store.feed(alice.id)
            #expect(whole.count == 7)

            var paged: [Event] = []
            var cursor: Int64 = 0
            while true {
                let page = try await store.events(for: alice.id, after: cursor, limit: 3)
                #expect(page.count <= 3)
                guard let last = page.last else { break }
                paged += page
                cursor = last.position
            }
            #expect(paged == whole)
            #expect(try await store.events(for: alice.id, after: whole[4].position, limit: 100) == Array(whole[5...]))
            #expect(try await store.events(for: alice.id, after: whole[6].position, limit: 100).isEmpty)
            #expect(try await store.events(for: alice.id, after: 0, limit: 0).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func positionsComeFromOneCounterForAllFeeds(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let users = try await [store.makeUser("a"), store.makeUser("b"), store.makeUser("c"), store.makeUser("d")]
            let group = try await store.makeGroup("all", owner: users[0].id, members: users.dropFirst().map(\.id))
            let pair = try await store.directConversation(users[1].id, users[3].id)
            var writes: [MessageID] = []
            for round in 0..<6 {
                let target = round.isMultiple(of: 2) ? group.id : pair.id
                let sender = round.isMultiple(of: 2) ? users[round % 4].id : users[1].id
                writes.append(try await store.send("round \(round)", to: target, from: sender).id)
            }
            var positionsByWrite: [MessageID: [Int64]] = [:]
            var all: [Int64] = []
            for user in users {
                for event in try await store.feed(user.id) {
                    all.append(event.position)
                    if let id = event.message?.id, event.type == .message { positionsByWrite[id, default: []].append(event.position) }
                }
            }
            // Each write is one event, at one position in every feed it reached, and no
            // two writes share a position.
            #expect(positionsByWrite.values.allSatisfy { Set($0).count == 1 })
            #expect(Set(positionsByWrite.values.map { $0[0] }).count == writes.count)
            // A later write's entries all come after every entry of an earlier one, in any feed.
            for (earlier, later) in zip(writes, writes.dropFirst()) {
                let before = try #require(positionsByWrite[earlier]?.max())
                let after = try #require(positionsByWrite[later]?.min())
                #expect(before < after)
            }
            #expect(store.committedPosition == all.max())
        }
    }

    @Test(arguments: StoreKind.allCases) func committedPositionAdvancesWithEachWriteThatFeedsSomeone(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            #expect(store.committedPosition == 0)
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            #expect(store.committedPosition == 0)  // accounts feed no one
            let direct = try await store.directConversation(alice.id, bob.id)
            #expect(store.committedPosition == 0)

            try await store.send("one", to: direct.id, from: alice.id)
            let first = store.committedPosition
            #expect(first > 0)
            let newest = max(try await store.feed(alice.id).last?.position ?? 0, try await store.feed(bob.id).last?.position ?? 0)
            #expect(first == newest)
            try await store.send("two", to: direct.id, from: alice.id)
            #expect(store.committedPosition > first)
            _ = try await store.markRead(direct.id, bob.id, seq: 2)
            #expect(store.committedPosition == (try await store.feed(bob.id).last?.position))
        }
    }

    @Test(arguments: StoreKind.allCases) func observersHearOfCommittedEntriesWithTheNewestPositionPerUser(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, fixture in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let dave = try await store.makeUser("dave")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id, carol.id])

            let updates = Shared([FeedUpdate]())
            let secondObserverCalls = Shared(0)
            let visibleElsewhere = Shared([Bool]())
            store.observeFeeds { update in
                updates.update { $0.append(update) }
                // A separate connection sees the entries only once they are committed.
                for position in update.latest.values {
                    let found = try? fixture.count("SELECT count(*) FROM conversation_events WHERE position = \(position)")
                    visibleElsewhere.update { $0.append(found == 1) }
                }
            }
            store.observeFeeds { _ in secondObserverCalls.update { $0 += 1 } }

            try await store.send("hello", to: group.id, from: bob.id, clientID: "x")
            var newest: [UserID: Int64] = [:]
            for update in updates.value {
                newest.merge(update.latest) { max($0, $1) }
            }
            #expect(Set(newest.keys) == [alice.id, bob.id, carol.id])
            for user in [alice, bob, carol] {
                #expect(newest[user.id] == (try await store.feed(user.id).last?.position), "\(user.user.username)")
            }
            #expect(newest[dave.id] == nil)
            #expect(!visibleElsewhere.value.isEmpty && visibleElsewhere.value.allSatisfy { $0 })
            #expect(secondObserverCalls.value == updates.value.count)

            // Writes that feed no one call no observer.
            let calls = updates.value.count
            _ = try await store.appendMessage(
                NewMessage(conversationID: group.id, senderID: bob.id, text: "hello", clientMessageID: "x"))
            _ = try await store.makeUser("erin")
            _ = try await store.markRead(group.id, bob.id, seq: 1)
            #expect(updates.value.count == calls)
        }
    }

    @Test(arguments: StoreKind.allCases) func positionsAreNeverReusedAfterReopening(_ kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            let clock = TestClock(step: 1)
            let store = try await fixture.open(clock: clock)
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let direct = try await store.directConversation(alice.id, bob.id)
            for index in 1...3 { try await store.send("before \(index)", to: direct.id, from: alice.id) }
            let before = store.committedPosition
            let epoch = store.epoch
            let oldFeed = try await store.feed(bob.id)
            // Even with every entry dropped, the counter must not restart. (Three messages:
            // each stored once, whatever the number of feeds it is in.)
            clock.advance(milliseconds: 1_000)
            #expect(try await store.pruneEvents(before: clock.now) == 3)
            await store.close()

            try await closing(try await fixture.open(clock: clock)) { reopened async throws in
                #expect(reopened.epoch == epoch)
                #expect(reopened.committedPosition == before)
                try await reopened.send("after", to: direct.id, from: alice.id)
                let newFeed = try await reopened.feed(bob.id)
                #expect(newFeed.count == 1)
                let newPosition = try #require(newFeed.first?.position)
                #expect(newPosition > before)
                #expect(newPosition > (oldFeed.last?.position ?? 0))
                #expect(reopened.committedPosition >= newPosition)
                #expect(try await reopened.user(id: bob.id)?.feedFloor == oldFeed.last?.position)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func positionsContinueAcrossSeveralReopenings(_ kind: StoreKind) async throws {
        try await StoreFixture.with(kind) { fixture in
            var seen: [Int64] = []
            var aliceID: UserID?
            var conversationID: ConversationID?
            for round in 0..<3 {
                let store = try await fixture.open()
                if aliceID == nil {
                    let alice = try await store.makeUser("alice")
                    aliceID = alice.id
                    conversationID = try await store.makeGroup("solo", owner: alice.id).id
                }
                let alice = try #require(aliceID)
                let conversation = try #require(conversationID)
                try await store.send("round \(round)", to: conversation, from: alice)
                seen = try await store.feed(alice).map(\.position)
                await store.close()
            }
            #expect(seen.count == 4)
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
        }
    }

    @Test(arguments: StoreKind.allCases) func pruningDropsOldEntriesAndRaisesTheFeedFloors(_ kind: StoreKind) async throws {
        let clock = TestClock()
        let start = clock.now
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let direct = try await store.directConversation(alice.id, bob.id)
            for index in 1...3 { try await store.send("old \(index)", to: direct.id, from: alice.id) }
            let oldAlice = try await store.feed(alice.id)
            let oldBob = try await store.feed(bob.id)

            clock.advance(milliseconds: 8 * 24 * 3_600_000)
            try await store.send("new", to: direct.id, from: bob.id)
            let group = try await store.makeGroup("fresh", owner: carol.id)
            let carolFeed = try await store.feed(carol.id)

            let cutoff = start.adding(seconds: 7 * 24 * 3600)
            // The old messages are in both feeds and stored once.
            #expect(oldAlice.map(\.position) == oldBob.map(\.position))
            #expect(try await store.pruneEvents(before: cutoff) == oldAlice.count)
            #expect(try await store.user(id: alice.id)?.feedFloor == oldAlice.last?.position)
            #expect(try await store.user(id: bob.id)?.feedFloor == oldBob.last?.position)
            #expect(try await store.user(id: carol.id)?.feedFloor == 0)

            let aliceNow = try await store.feed(alice.id)
            #expect(aliceNow.map(\.message?.text) == ["new"])
            #expect(try await store.feed(bob.id).map(\.message?.text) == ["new"])
            #expect(try await store.feed(carol.id) == carolFeed)
            #expect(carolFeed.first?.conversation?.id == group.id)

            // Nothing more to drop; an earlier cut-off never lowers a floor.
            #expect(try await store.pruneEvents(before: cutoff) == 0)
            #expect(try await store.pruneEvents(before: start) == 0)
            #expect(try await store.user(id: alice.id)?.feedFloor == oldAlice.last?.position)
        }
    }
}
