import IMProtocol
import IMStore
import Testing

@Suite struct TokenStoreTests {
    static let hashA: [UInt8] = Array(0..<32)
    static let hashB: [UInt8] = Array(32..<64)
    static let hashC: [UInt8] = Array(64..<96)

    @Test(arguments: StoreKind.allCases) func aTokenIsFoundByItsHashWithItsAccount(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let expiry = clock.now.adding(seconds: 3600)
            let created = try await store.createToken(hash: Self.hashA, userID: alice.id, device: "phone", expiresAt: expiry)
            #expect(created.replaced.isEmpty)
            #expect(created.token.userID == alice.id)
            #expect(created.token.device == "phone")
            #expect(created.token.createdAt == clock.now)
            #expect(created.token.expiresAt == expiry)
            #expect(created.token.revokedAt == nil && created.token.revokedReason == nil)

            let found = try #require(try await store.token(hash: Self.hashA))
            #expect(found.0 == created.token)
            #expect(found.1 == alice)
            #expect(try await store.token(hash: Self.hashB) == nil)
            #expect(try await store.token(hash: []) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aLoginOnTheSameDeviceKicksOutTheEarlierOne(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let first = try await store.createToken(hash: Self.hashA, userID: alice.id, device: "phone", expiresAt: nil)
            let other = try await store.createToken(hash: [9], userID: bob.id, device: "phone", expiresAt: nil)
            clock.advance(milliseconds: 1_000)

            let second = try await store.createToken(hash: Self.hashB, userID: alice.id, device: "phone", expiresAt: nil)
            #expect(second.replaced.map(\.id) == [first.token.id])
            #expect(second.replaced.first?.device == "phone")
            #expect(second.token.id != first.token.id)

            let kicked = try #require(try await store.token(hash: Self.hashA)).0
            #expect(kicked.revokedReason == "kicked_out")
            #expect(kicked.revokedAt == clock.now)
            #expect(try await store.token(hash: Self.hashB)?.0.revokedAt == nil)
            // Another user's login on a device of the same name is untouched.
            #expect(try await store.token(hash: [9])?.0 == other.token)

            // A third login on the same device replaces only the live one.
            let third = try await store.createToken(hash: Self.hashC, userID: alice.id, device: "phone", expiresAt: nil)
            #expect(third.replaced.map(\.id) == [second.token.id])
        }
    }

    @Test(arguments: StoreKind.allCases) func loginsWithoutOrOnOtherDevicesReplaceNothing(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let phone = try await store.createToken(hash: Self.hashA, userID: alice.id, device: "phone", expiresAt: nil)
            let laptop = try await store.createToken(hash: Self.hashB, userID: alice.id, device: "laptop", expiresAt: nil)
            let anonymous1 = try await store.createToken(hash: Self.hashC, userID: alice.id, device: nil, expiresAt: nil)
            let anonymous2 = try await store.createToken(hash: [7], userID: alice.id, device: nil, expiresAt: nil)
            #expect(laptop.replaced.isEmpty && anonymous1.replaced.isEmpty && anonymous2.replaced.isEmpty)
            for (hash, token) in [(Self.hashA, phone), (Self.hashB, laptop), (Self.hashC, anonymous1), ([7], anonymous2)] {
                #expect(try await store.token(hash: hash)?.0 == token.token)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func revokeTokenRecordsTheReasonAndTime(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let login = try await store.createToken(hash: Self.hashA, userID: alice.id, device: nil, expiresAt: nil)
            let kept = try await store.createToken(hash: Self.hashB, userID: alice.id, device: nil, expiresAt: nil)
            clock.advance(milliseconds: 60_000)
            try await store.revokeToken(id: login.token.id, reason: "logout")
            let revoked = try #require(try await store.token(hash: Self.hashA)).0
            #expect(revoked.revokedReason == "logout")
            #expect(revoked.revokedAt == clock.now)
            #expect(try await store.token(hash: Self.hashB)?.0 == kept.token)
            // An unknown id is not an error.
            try await store.revokeToken(id: 12_345, reason: "logout")
        }
    }

    @Test(arguments: StoreKind.allCases) func pruneTokensDeletesExpiredAndLongRevokedLoginsOnly(_ kind: StoreKind) async throws {
        let clock = TestClock()
        let start = clock.now
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            func login(_ hash: UInt8, expires: Int64?) async throws -> TokenRecord {
                try await store.createToken(
                    hash: [hash], userID: alice.id, device: nil,
                    expiresAt: expires.map { Timestamp(milliseconds: start.milliseconds + $0) }
                ).token
            }
            _ = try await login(1, expires: 1_000)  // expired before the cut-off
            _ = try await login(2, expires: 100_000)  // still valid
            _ = try await login(3, expires: nil)  // never expires
            let revokedEarly = try await login(4, expires: nil)
            let revokedLate = try await login(5, expires: nil)
            clock.advance(milliseconds: 500)
            try await store.revokeToken(id: revokedEarly.id, reason: "logout")
            clock.advance(milliseconds: 4_500)
            try await store.revokeToken(id: revokedLate.id, reason: "logout")

            let pruned = try await store.pruneTokens(before: Timestamp(milliseconds: start.milliseconds + 2_000))
            #expect(pruned == 2)
            #expect(try await store.token(hash: [1]) == nil)
            #expect(try await store.token(hash: [4]) == nil)
            for kept: UInt8 in [2, 3, 5] {
                #expect(try await store.token(hash: [kept]) != nil, "token \(kept)")
            }
            #expect(try await store.pruneTokens(before: Timestamp(milliseconds: start.milliseconds + 2_000)) == 0)
        }
    }
}

@Suite struct ContactStoreTests {
    @Test(arguments: StoreKind.allCases) func addingAContactTellsBothFeedsOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            let carol = try await store.makeUser("carol")

            #expect(try await store.addContact(alice.id, bob.id))
            #expect(try await store.contacts(of: alice.id) == [bob.user])
            #expect(try await store.contacts(of: bob.id).isEmpty)

            let aliceFeed = try await store.feed(alice.id)
            #expect(aliceFeed.count == 1)
            #expect(aliceFeed.first?.type == .contactAdded)
            #expect(aliceFeed.first?.user == bob.user)
            #expect(aliceFeed.first?.by == "alice")
            let bobFeed = try await store.feed(bob.id)
            #expect(bobFeed.count == 1)
            #expect(bobFeed.first?.type == .contactAdded)
            #expect(bobFeed.first?.user == alice.user)
            #expect(bobFeed.first?.by == "alice")
            #expect(try await store.feed(carol.id).isEmpty)

            // Adding again changes nothing and tells no one.
            #expect(try await store.addContact(alice.id, bob.id) == false)
            #expect(try await store.feed(alice.id).count == 1)
            #expect(try await store.feed(bob.id).count == 1)
            #expect(try await store.contacts(of: alice.id) == [bob.user])
        }
    }

    @Test(arguments: StoreKind.allCases) func contactsAreListedInNameOrder(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let zed = try await store.makeUser("zed")
            let bob = try await store.makeUser("bob")
            _ = try await store.addContact(alice.id, zed.id)
            _ = try await store.addContact(alice.id, bob.id)
            #expect(try await store.contacts(of: alice.id).map(\.username) == ["bob", "zed"])
        }
    }

    @Test(arguments: StoreKind.allCases) func removingAContactDeletesOnlyThatDirection(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            _ = try await store.addContact(alice.id, bob.id)
            _ = try await store.addContact(bob.id, alice.id)
            #expect(try await store.removeContact(alice.id, bob.id))
            #expect(try await store.contacts(of: alice.id).isEmpty)
            #expect(try await store.contacts(of: bob.id) == [alice.user])
            #expect(try await store.removeContact(alice.id, bob.id) == false)
            // After removal the contact can be added again.
            #expect(try await store.addContact(alice.id, bob.id))
        }
    }
}
