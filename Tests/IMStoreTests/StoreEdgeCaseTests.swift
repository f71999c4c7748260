import IMProtocol
import IMStore
import Testing

/// Edge cases of the store's contract: missing rows, batch notifications, replaced logins.
@Suite struct StoreEdgeCaseTests {
    @Test(arguments: StoreKind.allCases)
    func operationsOnAMissingAccountAreNotFound(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let ghost = UserID(rawValue: 999)
            let group = try await store.makeGroup("ops", owner: alice.id)
            let change = MembershipChange(event: .memberJoined, notice: "joined")
            let contact = await #expect(throws: StoreError.self) { try await store.addContact(alice.id, ghost) }
            #expect(contact?.kind == "notFound")
            let member = await #expect(throws: StoreError.self) {
                try await store.addMember(group.id, ghost, role: .member, change: change)
            }
            #expect(member?.kind == "notFound")
            let direct = await #expect(throws: StoreError.self) { try await store.directConversation(alice.id, ghost) }
            #expect(direct?.kind == "notFound")
            let token = await #expect(throws: StoreError.self) {
                try await store.createToken(hash: [1], userID: ghost, device: nil, expiresAt: nil)
            }
            #expect(token?.kind == "notFound")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func addingAMemberToAMissingConversationIsNotFound(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let error = await #expect(throws: StoreError.self) {
                try await store.addMember(
                    ConversationID(rawValue: 404), alice.id, role: .member,
                    change: MembershipChange(event: .memberJoined, notice: "joined"))
            }
            #expect(error?.kind == "notFound")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func oneCommittedWriteReachesObserversAsOneUpdate(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let updates = Shared([FeedUpdate]())
            store.observeFeeds { update in updates.update { $0.append(update) } }
            _ = try await store.addContact(alice.id, bob.id)
            #expect(updates.value.count == 1)
            #expect(Set(updates.value.first?.latest.keys.map { $0 } ?? []) == [alice.id, bob.id])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func replacedLoginsComeBackRevoked(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            _ = try await store.createToken(hash: [1], userID: alice.id, device: "phone", expiresAt: nil)
            let second = try await store.createToken(hash: [2], userID: alice.id, device: "phone", expiresAt: nil)
            let replaced = try #require(second.replaced.first)
            #expect(replaced.revokedReason == "kicked_out")
            #expect(replaced.revokedAt == clock.now)
            #expect(replaced == (try await store.token(hash: [1]))?.0)
        }
    }
}
