import IMProtocol
import IMStore
import Testing

/// The sessions list: `conversations(for:)`.
@Suite struct ConversationListTests {
    /// alice, bob, carol and dave; groups alpha (alice, bob, carol, later dave), beta (alice,
    /// bob) and gamma (alice); a direct conversation alice–bob with one message from bob,
    /// and an empty one alice–carol. Every write happens at a later time than the one
    /// before (the clock steps).
    struct World {
        var alice, bob, carol, dave: UserRecord
        var alpha, beta, gamma, direct, emptyDirect: ConversationID
    }

    static func makeWorld(_ store: any ServerStore) async throws -> World {
        let alice = try await store.makeUser("alice")
        let bob = try await store.updateProfile(
            try await store.makeUser("bob").id, ProfileUpdate(nickname: "Bobby", avatarURL: "/v1/media/bob"))
        let carol = try await store.makeUser("carol")
        let dave = try await store.makeUser("dave")
        let alpha = try await store.createConversation(
            kind: .group, name: "alpha", title: "Alpha Team", description: "", logoURL: "https://x/a.png",
            creator: alice.id)
        let joined = MembershipChange(event: .memberJoined, notice: "joined")
        _ = try await store.addMember(alpha.id, bob.id, role: .member, change: joined)
        _ = try await store.addMember(alpha.id, carol.id, role: .member, change: joined)
        let beta = try await store.makeGroup("beta", owner: alice.id, members: [bob.id])
        let gamma = try await store.makeGroup("gamma", owner: alice.id)

        let direct = try await store.directConversation(bob.id, alice.id)
        try await store.send("hi alice", to: direct.id, from: bob.id)

        try await store.send("one", to: alpha.id, from: bob.id)
        try await store.send("two", to: alpha.id, from: bob.id)
        try await store.send("three", to: alpha.id, from: carol.id)
        _ = try await store.addMember(alpha.id, dave.id, role: .member, change: joined)  // a notice, not unread

        try await store.send("mine", to: beta.id, from: alice.id)
        let emptyDirect = try await store.directConversation(alice.id, carol.id)
        return World(
            alice: alice, bob: bob, carol: carol, dave: dave, alpha: alpha.id, beta: beta.id, gamma: gamma.id,
            direct: direct.id, emptyDirect: emptyDirect.id)
    }

    @Test(arguments: StoreKind.allCases) func unreadCountsOthersLiveChatMessagesAfterTheMarkerUpToAThousand(
        _ kind: StoreKind
    ) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id])
            let unread = { (user: UserID) async throws -> Int? in
                try await store.conversations(for: user).first { $0.id == group.id }?.unread
            }
            #expect(try await unread(alice.id) == 0)
            var sent: [Message] = []
            for index in 0..<4 { sent.append(try await store.send("m\(index)", to: group.id, from: bob.id)) }
            #expect(try await unread(alice.id) == 4)
            #expect(try await unread(bob.id) == 0)

            // Neither a deleted message nor a system notice (a join, a deletion by an
            // admin) is unread.
            _ = try await store.deleteMessage(
                MessageDeletion(conversationID: group.id, messageID: sent[1].id, by: ActingUser(id: bob.id), notice: ""))
            _ = try await store.addMember(
                group.id, carol.id, role: .member, change: MembershipChange(event: .memberJoined, notice: "carol joined"))
            _ = try await store.deleteMessage(
                MessageDeletion(
                    conversationID: group.id, messageID: sent[2].id, by: ActingUser(id: alice.id),
                    notice: "alice deleted a message by bob"))
            #expect(try await unread(alice.id) == 2)
            #expect(try await unread(carol.id) == 0)

            // Reading part of it, then one's own message reads everything before it.
            _ = try await store.markRead(group.id, alice.id, seq: sent[0].seq)
            #expect(try await unread(alice.id) == 1)
            try await store.send("from carol", to: group.id, from: carol.id)
            #expect(try await unread(alice.id) == 2)
            try await store.send("mine", to: group.id, from: alice.id)
            #expect(try await unread(alice.id) == 0)
            #expect(try await unread(bob.id) == 2)

            // Counted up to 1,000.
            for index in 0..<1005 { try await store.send("flood \(index)", to: group.id, from: carol.id) }
            #expect(try await unread(alice.id) == 1000)
            #expect(try await unread(bob.id) == 1000)
            #expect(try await unread(carol.id) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func unreadConversationsComeFirstThenTheMostRecent(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let world = try await Self.makeWorld(store)
            let list = try await store.conversations(for: world.alice.id)
            // beta is the most recent but read; alpha and the direct one have unread messages.
            #expect(list.map(\.id) == [world.alpha, world.direct, world.beta, world.gamma])
            #expect(list.map(\.unread) == [3, 1, 0, 0])

            _ = try await store.markRead(world.alpha, world.alice.id, seq: .max)
            let after = try await store.conversations(for: world.alice.id)
            #expect(after.map(\.id) == [world.direct, world.beta, world.alpha, world.gamma])
            #expect(after.map(\.unread) == [1, 0, 0, 0])
        }
    }

    @Test(arguments: StoreKind.allCases) func unreadCountsOnlyOthersChatMessagesAfterTheReadMarker(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let world = try await Self.makeWorld(store)
            func unread(_ user: UserRecord, _ conversation: ConversationID) async throws -> Int? {
                try await store.conversations(for: user.id).first { $0.id == conversation }?.unread
            }
            // Three chat messages from others; the join notices do not count.
            #expect(try await unread(world.alice, world.alpha) == 3)
            // bob's own messages are not unread; carol's later one is.
            #expect(try await unread(world.bob, world.alpha) == 1)
            #expect(try await unread(world.carol, world.alpha) == 0)
            // dave joined after every message.
            #expect(try await unread(world.dave, world.alpha) == 0)
            // alice's own message is not unread for her, but is for bob.
            #expect(try await unread(world.alice, world.beta) == 0)
            #expect(try await unread(world.bob, world.beta) == 1)

            let alphaSeq = try #require(try await store.conversation(id: world.alpha)?.lastSeq)
            _ = try await store.markRead(world.alpha, world.alice.id, seq: alphaSeq - 2)
            #expect(try await unread(world.alice, world.alpha) == 1)

            // Sending moves the sender's marker past everything before.
            try await store.send("caught up", to: world.alpha, from: world.alice.id)
            #expect(try await unread(world.alice, world.alpha) == 0)
            #expect(try await store.membership(world.alpha, world.alice.id)?.lastReadSeq == alphaSeq + 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func entriesCarryAddressNameAvatarLastMessageAndMarker(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let world = try await Self.makeWorld(store)
            let list = try await store.conversations(for: world.alice.id)
            let alpha = try #require(list.first { $0.id == world.alpha })
            #expect(alpha.kind == .group && alpha.address == .group("alpha"))
            #expect(alpha.displayName == "Alpha Team" && alpha.avatarURL == "https://x/a.png")
            #expect(alpha.lastMessage?.type == .system && alpha.lastMessage?.senderID == world.dave.id)
            #expect(alpha.lastReadSeq == 0)
            let alphaHistory = try await store.messages(world.alpha, before: nil, limit: 1)
            #expect(alpha.lastMessage == alphaHistory.first)
            #expect(alpha.updatedAt == alphaHistory.first?.createdAt)

            let gamma = try #require(list.first { $0.id == world.gamma })
            #expect(gamma.displayName == "gamma")  // no title: the name

            let direct = try #require(list.first { $0.id == world.direct })
            #expect(direct.kind == .direct)
            #expect(direct.address == .user("bob"))
            #expect(direct.displayName == "Bobby")
            #expect(direct.avatarURL == "/v1/media/bob")
            #expect(direct.lastMessage?.text == "hi alice" && direct.lastMessage?.sender == "bob")

            let fromBob = try #require(try await store.conversations(for: world.bob.id).first { $0.id == world.direct })
            #expect(fromBob.address == .user("alice"))
            #expect(fromBob.displayName == "Alice")
            #expect(fromBob.unread == 0)
            #expect(fromBob.lastReadSeq == 1)
        }
    }

    /// The other side's name and profile come from the conversation's name (`<a>:<b>`),
    /// whichever side the viewer is, ids of any length, and a conversation with oneself.
    @Test(arguments: StoreKind.allCases) func aDirectEntryNamesTheOtherSideWhicheverSideTheViewerIs(
        _ kind: StoreKind
    ) async throws {
        try await withStore(kind) { store in
            var users: [UserRecord] = []
            for index in 0..<12 {
                users.append(
                    try await store.updateProfile(
                        try await store.makeUser("user\(index)").id,
                        ProfileUpdate(nickname: "Nick \(index)", avatarURL: "/v1/media/\(index)")))
            }
            // The lower id first and second, a one-digit id with a two-digit one, and oneself.
            let pairs = [(0, 11), (11, 1), (2, 3), (5, 5)]
            for (from, to) in pairs {
                let conversation = try await store.directConversation(users[from].id, users[to].id)
                try await store.send("from \(from)", to: conversation.id, from: users[from].id)
            }
            for (from, to) in pairs {
                for (viewer, other) in [(from, to), (to, from)] {
                    let entries = try await store.conversations(for: users[viewer].id).filter { $0.kind == .direct }
                    let entry = try #require(entries.first { $0.lastMessage?.text == "from \(from)" })
                    #expect(entry.address == .user("user\(other)"))
                    #expect(entry.displayName == "Nick \(other)")
                    #expect(entry.avatarURL == "/v1/media/\(other)")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aDirectConversationIsHiddenUntilItHasAMessage(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let world = try await Self.makeWorld(store)
            #expect(try await store.conversations(for: world.alice.id).contains { $0.id == world.emptyDirect } == false)
            #expect(try await store.conversations(for: world.carol.id).contains { $0.id == world.emptyDirect } == false)

            try await store.send("hello?", to: world.emptyDirect, from: world.carol.id)
            let aliceList = try await store.conversations(for: world.alice.id)
            let entry = try #require(aliceList.first { $0.id == world.emptyDirect })
            #expect(entry.address == .user("carol") && entry.unread == 1)
            #expect(aliceList.first?.id == world.emptyDirect)  // unread and newest
            #expect(try await store.conversations(for: world.carol.id).first { $0.id == world.emptyDirect }?.address
                == .user("alice"))
        }
    }

    @Test(arguments: StoreKind.allCases) func aUserWithNothingHasAnEmptyList(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let loner = try await store.makeUser("loner")
            #expect(try await store.conversations(for: loner.id).isEmpty)
        }
    }
}
