import IMProtocol
import IMStore
import Testing

@Suite struct ConversationStoreTests {
    @Test(arguments: StoreKind.allCases) func creatingAGroupMakesTheCreatorItsOwnerAndWritesANotice(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let group = try await store.createConversation(
                kind: .group, name: "ops", title: "Ops Team", description: "the on-call crew",
                logoURL: "https://example.com/ops.png", creator: alice.id)
            #expect(group.kind == .group)
            #expect(group.name == "ops" && group.title == "Ops Team")
            #expect(group.description == "the on-call crew" && group.logoURL == "https://example.com/ops.png")
            #expect(group.createdBy == alice.id)
            #expect(group.createdAt == clock.now && group.updatedAt == clock.now)
            #expect(group.memberCount == 1)
            #expect(group.lastSeq == 1)

            let membership = try #require(try await store.membership(group.id, alice.id))
            #expect(membership.role == .owner)
            #expect(try await store.members(group.id) == [Member(user: alice.user, role: .owner, joinedAt: clock.now)])

            let history = try await store.messages(group.id, before: nil, limit: 10)
            #expect(history.count == 1)
            let notice = try #require(history.first)
            #expect(notice.type == .system && notice.seq == 1)
            #expect(notice.text == "alice created the group")
            #expect(notice.senderID == alice.id && notice.sender == "alice")

            let feed = try await store.feed(alice.id)
            #expect(feed.count == 1)
            #expect(feed.first?.type == .memberJoined)
            #expect(feed.first?.conversation == ConversationRef(id: group.id, kind: .group, address: .group("ops")))
            #expect(feed.first?.user == alice.user)
            #expect(feed.first?.message == notice)

            #expect(try await store.conversation(id: group.id) == group)
            #expect(try await store.conversation(kind: .group, name: "ops") == group)
            #expect(try await store.conversation(kind: .room, name: "ops") == nil)
            #expect(try await store.conversation(id: ConversationID(rawValue: 999)) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aTakenNameIsAConflictPerKind(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            _ = try await store.makeGroup("ops", owner: alice.id)
            let feedBefore = try await store.feed(bob.id)
            let error = await #expect(throws: StoreError.self) {
                try await store.makeGroup("ops", owner: bob.id)
            }
            #expect(error?.kind == "conflict")
            #expect(error?.description.contains("ops") == true)
            #expect(try await store.feed(bob.id) == feedBefore)
            #expect(try await store.conversationInfos(for: bob.id, kind: .group).isEmpty)

            // Rooms have their own names; their creator is a plain member.
            let room = try await store.makeGroup("ops", owner: bob.id, kind: .room)
            #expect(room.kind == .room && room.memberCount == 1)
            #expect(try await store.membership(room.id, bob.id)?.role == .member)
            #expect(try await store.messages(room.id, before: nil, limit: 5).first?.text == "bob created the room")
            let roomError = await #expect(throws: StoreError.self) {
                try await store.makeGroup("ops", owner: alice.id, kind: .room)
            }
            #expect(roomError?.kind == "conflict")
        }
    }

    @Test(arguments: StoreKind.allCases) func theDirectConversationIsCreatedOnceForBothOrders(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let first = try await store.directConversation(alice.id, bob.id)
            let second = try await store.directConversation(bob.id, alice.id)
            let third = try await store.directConversation(alice.id, bob.id)
            #expect(first == second && second == third)
            #expect(first.kind == .direct)
            #expect(first.name == ConversationRecord.directName(bob.id, alice.id))
            #expect(first.name == "\(alice.id.rawValue):\(bob.id.rawValue)")
            let participants = try #require(first.participants)
            #expect(participants.0 == alice.id && participants.1 == bob.id)
            #expect(first.memberCount == 2 && first.lastSeq == 0)
            #expect(try await store.membership(first.id, alice.id) != nil)
            #expect(try await store.membership(first.id, bob.id) != nil)
            #expect(try await store.members(first.id).map(\.user.username).sorted() == ["alice", "bob"])
            #expect(try await store.messages(first.id, before: nil, limit: 5).isEmpty)
            #expect(try await store.feed(alice.id).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func concurrentFirstUsesOfADirectConversationAgree(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let carol = try await store.makeUser("carol")
            let dave = try await store.makeUser("dave")
            let ids = try await withThrowingTaskGroup(of: ConversationID.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let pair = index.isMultiple(of: 2) ? (carol.id, dave.id) : (dave.id, carol.id)
                        return try await store.directConversation(pair.0, pair.1).id
                    }
                }
                return try await group.reduce(into: Set<ConversationID>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            let id = try #require(ids.first)
            #expect(try await store.conversation(id: id)?.memberCount == 2)
            #expect(try await store.members(id).count == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func addingAMemberTellsEveryoneWithANotice(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let group = try await store.makeGroup("ops", owner: alice.id)
            _ = try await store.send("before bob", to: group.id, from: alice.id)

            let joined = MembershipChange(event: .memberJoined, notice: "bob joined the group")
            #expect(try await store.addMember(group.id, bob.id, role: .admin, change: joined))

            let record = try #require(try await store.conversation(id: group.id))
            #expect(record.memberCount == 2 && record.lastSeq == 3)
            let membership = try #require(try await store.membership(group.id, bob.id))
            #expect(membership.role == .admin)
            #expect(membership.lastReadSeq == 2)  // joins with everything before as read
            let notice = try #require(try await store.messages(group.id, before: nil, limit: 1).first)
            #expect(notice.type == .system && notice.text == "bob joined the group" && notice.senderID == bob.id)

            for member in [alice, bob] {
                let event = try #require(try await store.feed(member.id).last)
                #expect(event.type == .memberJoined)
                #expect(event.user == bob.user)
                #expect(event.by == nil)
                #expect(event.message == notice)
                #expect(event.conversation?.address == .group("ops"))
            }
            #expect(try await store.feed(carol.id).isEmpty)

            // Adding again is a no-op.
            let aliceEvents = try await store.feed(alice.id).count
            #expect(try await store.addMember(group.id, bob.id, role: .member, change: joined) == false)
            #expect(try await store.conversation(id: group.id) == record)
            #expect(try await store.membership(group.id, bob.id)?.role == .admin)
            #expect(try await store.feed(alice.id).count == aliceEvents)
        }
    }

    @Test(arguments: StoreKind.allCases) func removingAMemberTellsEveryoneIncludingTheMember(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let group = try await store.makeGroup("ops", owner: alice.id, members: [bob.id, carol.id])

            let kick = MembershipChange(event: .memberKicked, notice: "alice removed bob", by: alice.id)
            #expect(try await store.removeMember(group.id, bob.id, change: kick))

            let notice = try #require(try await store.messages(group.id, before: nil, limit: 1).first)
            #expect(notice.type == .system && notice.text == "alice removed bob" && notice.senderID == alice.id)
            for member in [alice, bob, carol] {
                let event = try #require(try await store.feed(member.id).last)
                #expect(event.type == .memberKicked, "\(member.user.username)")
                #expect(event.user == bob.user)
                #expect(event.by == "alice")
                #expect(event.message == notice)
                #expect(event.conversation?.id == group.id)
            }
            #expect(try await store.membership(group.id, bob.id) == nil)
            #expect(try await store.conversation(id: group.id)?.memberCount == 2)
            #expect(try await store.members(group.id).map(\.user.username) == ["alice", "carol"])

            // The removed member hears nothing more; removing again is a no-op.
            let bobEvents = try await store.feed(bob.id).count
            _ = try await store.send("after bob", to: group.id, from: alice.id)
            #expect(try await store.feed(bob.id).count == bobEvents)
            #expect(try await store.removeMember(group.id, bob.id, change: kick) == false)

            // Leaving by oneself carries no `by`.
            let leave = MembershipChange(event: .memberLeft, notice: "carol left")
            #expect(try await store.removeMember(group.id, carol.id, change: leave))
            let left = try #require(try await store.feed(carol.id).last)
            #expect(left.type == .memberLeft && left.user == carol.user && left.by == nil)
            #expect(try await store.conversation(id: group.id)?.memberCount == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func membersAreListedInJoinOrderWithTheirRoles(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")
            let group = try await store.makeGroup("ops", owner: alice.id)
            let change = MembershipChange(event: .memberJoined, notice: "joined")
            _ = try await store.addMember(group.id, carol.id, role: .admin, change: change)
            _ = try await store.addMember(group.id, bob.id, role: .member, change: change)
            let members = try await store.members(group.id)
            #expect(members.map(\.user) == [alice.user, carol.user, bob.user])
            #expect(members.map(\.role) == [.owner, .admin, .member])
            #expect(members[0].joinedAt < members[1].joinedAt && members[1].joinedAt < members[2].joinedAt)
        }
    }

    @Test(arguments: StoreKind.allCases) func updateInfoChangesOnlyTheGivenFieldsAndTellsTheMembers(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let outsider = try await store.makeUser("outsider")
            let created = try await store.createConversation(
                kind: .group, name: "ops", title: "Ops", description: "first", logoURL: "https://x/1.png",
                creator: alice.id)
            _ = try await store.addMember(
                created.id, bob.id, role: .member, change: MembershipChange(event: .memberJoined, notice: "bob joined"))

            let renamed = try await store.updateInfo(
                created.id, ConversationInfoUpdate(title: "Operations"), by: ActingUser(id: alice.id), notice: "alice renamed the group")
            #expect(renamed.title == "Operations")
            #expect(renamed.description == "first" && renamed.logoURL == "https://x/1.png")
            #expect(renamed.lastSeq == created.lastSeq + 2)
            #expect(try await store.conversation(id: created.id) == renamed)

            let notice = try #require(try await store.messages(created.id, before: nil, limit: 1).first)
            #expect(notice.type == .system && notice.text == "alice renamed the group" && notice.senderID == alice.id)
            for member in [alice, bob] {
                let event = try #require(try await store.feed(member.id).last)
                #expect(event.type == .conversationUpdated)
                #expect(event.by == "alice")
                #expect(event.message == notice)
                #expect(event.conversation?.address == .group("ops"))
                let info = try #require(event.info)
                #expect(info.title == "Operations" && info.description == "first")
                #expect(info.logoURL == "https://x/1.png" && info.memberCount == 2 && info.createdBy == "alice")
            }
            #expect(try await store.feed(outsider.id).isEmpty)

            // A member edits only once the group lets members edit its info.
            let edit = ConversationInfoUpdate(logoURL: "", description: "second")
            let refused = await #expect(throws: StoreError.self) {
                try await store.updateInfo(created.id, edit, by: ActingUser(id: bob.id), notice: "bob edited")
            }
            #expect(refused?.kind == "refused(not_group_admin)")
            let settings = ConversationInfoUpdate(infoEditableBy: .members)
            let byMember = await #expect(throws: StoreError.self) {
                try await store.updateInfo(created.id, settings, by: ActingUser(id: bob.id), notice: "bob opened it")
            }
            #expect(byMember?.kind == "refused(not_group_admin)")
            _ = try await store.updateInfo(created.id, settings, by: ActingUser(id: alice.id), notice: "alice opened it")
            let described = try await store.updateInfo(created.id, edit, by: ActingUser(id: bob.id), notice: "bob edited")
            #expect(described.title == "Operations" && described.description == "second" && described.logoURL == "")
            #expect(try await store.feed(alice.id).last?.by == "bob")
        }
    }

    @Test(arguments: StoreKind.allCases) func updateInfoOfAMissingConversationIsNotFound(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let error = await #expect(throws: StoreError.self) {
                try await store.updateInfo(
                    ConversationID(rawValue: 77), ConversationInfoUpdate(title: "x"), by: ActingUser(id: alice.id), notice: "n")
            }
            #expect(error?.kind == "notFound")
            #expect(try await store.feed(alice.id).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func infoFallsBackToTheNameForAnEmptyTitle(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let room = try await store.makeGroup("lobby", owner: alice.id, kind: .room)
            let info = try await store.info(room)
            #expect(
                info
                    == ConversationInfo(
                        id: room.id, kind: .room, name: "lobby", title: "lobby", memberCount: 1, createdBy: "alice",
                        createdAt: clock.now))
            #expect(info.address == .room("lobby"))
        }
    }

    @Test(arguments: StoreKind.allCases) func conversationInfosListsAUsersGroupsOrRoomsByName(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            _ = try await store.makeGroup("zulu", owner: alice.id, members: [bob.id])
            _ = try await store.makeGroup("alpha", owner: alice.id)
            _ = try await store.makeGroup("mike", owner: bob.id, members: [alice.id])
            _ = try await store.makeGroup("lobby", owner: bob.id, kind: .room)
            _ = try await store.directConversation(alice.id, bob.id)

            let aliceGroups = try await store.conversationInfos(for: alice.id, kind: .group)
            #expect(aliceGroups.map(\.name) == ["alpha", "mike", "zulu"])
            #expect(aliceGroups.map(\.memberCount) == [1, 2, 2])
            #expect(aliceGroups.map(\.createdBy) == ["alice", "bob", "alice"])
            #expect(aliceGroups.allSatisfy { $0.kind == .group })
            #expect(try await store.conversationInfos(for: bob.id, kind: .group).map(\.name) == ["mike", "zulu"])
            #expect(try await store.conversationInfos(for: alice.id, kind: .room).isEmpty)
            #expect(try await store.conversationInfos(for: bob.id, kind: .room).map(\.name) == ["lobby"])
        }
    }
}
