import IMProtocol
import IMStore
import Testing

/// A conversation's events reach a user's feed through membership: from the event that
/// announces their joining up to the one that announces their leaving, never outside.
@Suite struct FeedMembershipTests {
    static func joined(_ name: String) -> MembershipChange { MembershipChange(event: .memberJoined, notice: "\(name) joined") }
    static func left(_ name: String) -> MembershipChange { MembershipChange(event: .memberLeft, notice: "\(name) left") }

    @Test(arguments: StoreKind.allCases) func aMemberReadsFromTheirJoiningToTheirLeavingAndAgainAfterRejoining(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let group = try await store.makeGroup("ops", owner: alice.id)
            let start = store.committedPosition
            try await store.send("before bob", to: group.id, from: alice.id)
            #expect(try await store.addMember(group.id, bob.id, role: .member, change: Self.joined("bob")))
            try await store.send("with bob", to: group.id, from: alice.id)
            #expect(try await store.removeMember(group.id, bob.id, change: Self.left("bob")))
            try await store.send("bob gone", to: group.id, from: alice.id)
            #expect(try await store.addMember(group.id, bob.id, role: .member, change: Self.joined("bob")))
            try await store.send("bob back", to: group.id, from: alice.id)

            let bobFeed = try await store.events(for: bob.id, after: start, limit: 100)
            #expect(bobFeed.map(\.type) == [.memberJoined, .message, .memberLeft, .memberJoined, .message])
            #expect(bobFeed.map(\.message?.text) == ["bob joined", "with bob", "bob left", "bob joined", "bob back"])
            let aliceFeed = try await store.events(for: alice.id, after: start, limit: 100)
            #expect(aliceFeed.compactMap(\.message?.text) == [
                "before bob", "bob joined", "with bob", "bob left", "bob gone", "bob joined", "bob back",
            ])
            // One event, one position, in every feed it reached.
            #expect(Set(bobFeed.map(\.position)).isSubset(of: aliceFeed.map(\.position)))
            // From any cursor, a feed reads on exactly where it left off.
            for (index, event) in bobFeed.enumerated() {
                #expect(try await store.events(for: bob.id, after: event.position, limit: 100) == Array(bobFeed[(index + 1)...]))
                #expect(try await store.events(for: bob.id, after: event.position, limit: 1) == Array(bobFeed[(index + 1)...].prefix(1)))
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aCursorFromBeforeJoiningDoesNotReachBackBeforeTheJoining(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let group = try await store.makeGroup("ops", owner: alice.id)
            let bobCursor = store.committedPosition
            try await store.send("not for bob", to: group.id, from: alice.id)
            _ = try await store.addMember(group.id, bob.id, role: .member, change: Self.joined("bob"))
            #expect(try await store.events(for: bob.id, after: bobCursor, limit: 100).map(\.type) == [.memberJoined])
            // Joining again while a member adds nothing.
            #expect(try await store.addMember(group.id, bob.id, role: .member, change: Self.joined("bob")) == false)
            #expect(try await store.events(for: bob.id, after: bobCursor, limit: 100).count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func aKickedMemberReadsTheKickAndNothingAfter(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id])
            let cursor = store.committedPosition
            try await store.send("last words", to: group.id, from: bob.id)
            let kick = MembershipChange(event: .memberKicked, notice: "alice removed bob", by: alice.id)
            #expect(try await store.removeMember(group.id, bob.id, change: kick))
            try await store.send("after the kick", to: group.id, from: alice.id)
            await #expect(throws: StoreError.self) { try await store.send("let me back", to: group.id, from: bob.id) }

            let bobFeed = try await store.events(for: bob.id, after: cursor, limit: 100)
            #expect(bobFeed.map(\.type) == [.message, .memberKicked])
            #expect(bobFeed.last?.user?.id == bob.id)
            #expect(bobFeed.last?.by == "alice")
            #expect(try await store.events(for: bob.id, after: bobFeed[1].position, limit: 100).isEmpty)
            #expect(try await store.events(for: alice.id, after: cursor, limit: 100).map(\.type) == [.message, .memberKicked, .message])
        }
    }

    @Test(arguments: StoreKind.allCases) func roomMessagesReachOnlyThosePresentAtTheTime(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let dave = try await store.makeUser("dave")
            let erin = try await store.makeUser("erin")
            let frank = try await store.makeUser("frank")
            let room = try await store.makeGroup("lobby", owner: dave.id, members: [erin.id], kind: .room)
            let cursor = store.committedPosition
            try await store.send("one", to: room.id, from: dave.id)
            _ = try await store.removeMember(room.id, erin.id, change: Self.left("erin"))
            try await store.send("two", to: room.id, from: dave.id)
            _ = try await store.addMember(room.id, frank.id, role: .member, change: Self.joined("frank"))
            _ = try await store.addMember(room.id, erin.id, role: .member, change: Self.joined("erin"))
            try await store.send("three", to: room.id, from: dave.id)

            let text = { (user: UserRecord) in try await store.events(for: user.id, after: cursor, limit: 100).compactMap(\.message?.text) }
            #expect(try await text(dave) == ["one", "erin left", "two", "frank joined", "erin joined", "three"])
            #expect(try await text(erin) == ["one", "erin left", "erin joined", "three"])
            #expect(try await text(frank) == ["frank joined", "erin joined", "three"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aFeedMergedFromManyConversationsPagesInPositionOrder(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let hub = try await store.makeUser("hub")
            var conversations: [ConversationID] = []
            var senders: [UserID] = []
            for index in 0..<10 {
                let other = try await store.makeUser("peer\(index)")
                senders.append(other.id)
                conversations.append(try await store.directConversation(hub.id, other.id).id)
            }
            let start = store.committedPosition
            var sent: [MessageID] = []
            for round in 0..<60 {
                // Uneven: some conversations far busier than others.
                let index = round % 7 == 0 ? round % 10 : round % 3
                sent.append(try await store.send("r\(round)", to: conversations[index], from: senders[index]).id)
                if round % 9 == 0 { _ = try await store.markRead(conversations[index], hub.id, seq: 1_000) }
            }
            let whole = try await store.events(for: hub.id, after: start, limit: 1_000)
            #expect(whole.compactMap { $0.type == .message ? $0.message?.id : nil } == sent)
            for limit in [1, 3, 7, 50] {
                var paged: [Event] = []
                var cursor = start
                while let page = Optional(try await store.events(for: hub.id, after: cursor, limit: limit)), let last = page.last {
                    #expect(page.count <= limit)
                    paged += page
                    cursor = last.position
                }
                #expect(paged == whole, "limit \(limit)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func messagesReadTheirCurrentRow(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, fixture in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id])
            let cursor = store.committedPosition
            let sent = try await store.send("typo", to: group.id, from: alice.id)
            // Stored once, so a change to the message shows in every feed that has it.
            try fixture.execute("UPDATE messages SET text = 'fixed', deleted_at = 1 WHERE id = \(sent.id.rawValue)")
            for user in [alice, bob] {
                let message = try #require(try await store.events(for: user.id, after: cursor, limit: 10).last?.message)
                #expect(message.text == "fixed")
                #expect(message.deletedAt != nil)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func retentionRaisesTheFloorOfEveryoneWhoCouldHaveReadADroppedEvent(_ kind: StoreKind) async throws {
        let clock = TestClock()
        let start = clock.now
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let dave = try await store.makeUser("dave")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id])
            let bobCursor = store.committedPosition
            try await store.send("old", to: group.id, from: alice.id)
            _ = try await store.removeMember(group.id, bob.id, change: Self.left("bob"))
            let bobLeft = try #require(try await store.events(for: bob.id, after: bobCursor, limit: 10).last)
            try await store.send("old, bob gone", to: group.id, from: alice.id)
            let oldNewest = store.committedPosition

            clock.advance(milliseconds: 8 * 24 * 3_600_000)
            let carolCursor = store.committedPosition
            _ = try await store.addMember(group.id, carol.id, role: .member, change: Self.joined("carol"))
            try await store.send("new", to: group.id, from: alice.id)

            #expect(try await store.pruneEvents(before: start.adding(seconds: 7 * 24 * 3600)) > 0)
            #expect(try await store.user(id: alice.id)?.feedFloor == oldNewest)
            // Bob could read up to his leaving only; carol joined after everything dropped.
            #expect(try await store.user(id: bob.id)?.feedFloor == bobLeft.position)
            #expect(try await store.user(id: carol.id)?.feedFloor == 0)
            #expect(try await store.user(id: dave.id)?.feedFloor == 0)

            await #expect(throws: StoreError.self) { try await store.events(for: alice.id, after: bobCursor, limit: 10) }
            await #expect(throws: StoreError.self) { try await store.events(for: bob.id, after: bobCursor, limit: 10) }
            #expect(try await store.events(for: bob.id, after: bobLeft.position, limit: 10).isEmpty)
            #expect(try await store.events(for: alice.id, after: oldNewest, limit: 10).compactMap(\.message?.text) == ["carol joined", "new"])
            #expect(try await store.events(for: carol.id, after: carolCursor, limit: 10).compactMap(\.message?.text) == ["carol joined", "new"])
            #expect(try await store.events(for: dave.id, after: 0, limit: 10).isEmpty)
        }
    }

    /// Someone who left after the retention's cut, whose newest dropped event is a
    /// message: their floor is that message's position (on SQLite found through the
    /// message, which the events' index by conversation leaves out: schema version 10).
    @Test(arguments: StoreKind.allCases) func aFormerMembersFloorIsTheNewestDroppedMessageTheyCouldRead(_ kind: StoreKind)
        async throws
    {
        let clock = TestClock()
        let start = clock.now
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let erin = try await store.makeUser("erin")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [erin.id])
            let joined = store.committedPosition
            try await store.send("before the cut", to: group.id, from: alice.id)
            let dropped = store.committedPosition
            #expect(dropped > joined)

            clock.advance(milliseconds: 8 * 24 * 3_600_000)
            _ = try await store.removeMember(group.id, erin.id, change: Self.left("erin"))
            try await store.send("after", to: group.id, from: alice.id)

            #expect(try await store.pruneEvents(before: start.adding(seconds: 7 * 24 * 3600)) > 0)
            #expect(try await store.user(id: erin.id)?.feedFloor == dropped)
            await #expect(throws: StoreError.self) { try await store.events(for: erin.id, after: joined, limit: 10) }
            #expect(try await store.events(for: erin.id, after: dropped, limit: 10).compactMap(\.message?.text)
                == ["erin left"])
        }
    }
}
