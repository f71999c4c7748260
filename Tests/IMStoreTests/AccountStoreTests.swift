import IMProtocol
import IMStore
import Testing

@Suite struct AccountStoreTests {
    @Test(arguments: StoreKind.allCases) func createUserStoresEveryFieldAndAssignsAnID(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let bot = try await store.createUser(
                NewUser(username: "helper", passwordHash: "$argon2id$x", nickname: "Helper Bot", isBot: true, isAdmin: true))
            #expect(bot.user.username == "helper")
            #expect(bot.user.nickname == "Helper Bot")
            #expect(bot.user.isBot)
            #expect(bot.isAdmin)
            #expect(bot.passwordHash == "$argon2id$x")
            #expect(bot.user.createdAt == clock.now)
            #expect(bot.user.avatarURL == "" && bot.user.signature == "" && bot.user.attrs.isEmpty)
            #expect(bot.feedFloor == 0)
            let person = try await store.makeUser("alice")
            #expect(person.id != bot.id)
            #expect(!person.user.isBot && !person.isAdmin)
        }
    }

    @Test(arguments: StoreKind.allCases) func aTakenUsernameIsAConflictAndChangesNothing(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let error = await #expect(throws: StoreError.self) {
                try await store.createUser(NewUser(username: "alice", passwordHash: "other", nickname: "Impostor"))
            }
            #expect(error?.kind == "conflict")
            #expect(error?.description.contains("alice") == true)
            #expect(try await store.user(named: "alice") == alice)
            #expect(try await store.listUsers(after: nil, limit: 10).count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func usersAreFoundByIDByNameAndInBatches(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            #expect(try await store.user(id: alice.id) == alice)
            #expect(try await store.user(named: "bob") == bob)
            #expect(try await store.user(id: UserID(rawValue: 999)) == nil)
            #expect(try await store.user(named: "nobody") == nil)
            #expect(try await store.user(named: "ALICE") == nil)

            let found = try await store.users(named: ["bob", "nobody", "alice", "bob", "ghost"])
            #expect(found.count == 2)
            #expect(Set(found) == [alice, bob])
            #expect(try await store.users(named: []).isEmpty)

            // Names travel as bound values, quotes and all.
            let odd = try await store.makeUser("o'brien\"; DROP TABLE users; --")
            #expect(try await store.user(named: "o'brien\"; DROP TABLE users; --") == odd)
            #expect(try await store.users(named: ["o'brien\"; DROP TABLE users; --", "' OR '1'='1"]) == [odd])
        }
    }

    @Test(arguments: StoreKind.allCases) func listUsersPagesInNameOrder(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let names = ["mallory", "alice", "dave", "carol", "bob", "erin", "zed"]
            for name in names { _ = try await store.makeUser(name) }
            var seen: [String] = []
            var after: String?
            while true {
                let page = try await store.listUsers(after: after, limit: 3)
                #expect(page.count <= 3)
                guard let last = page.last else { break }
                seen += page.map(\.user.username)
                after = last.user.username
            }
            #expect(seen == names.sorted())
            #expect(try await store.listUsers(after: "carol", limit: 2).map(\.user.username) == ["dave", "erin"])
            #expect(try await store.listUsers(after: "zed", limit: 5).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func updateProfileChangesOnlyTheGivenFields(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let renamed = try await store.updateProfile(alice.id, ProfileUpdate(nickname: "Ally"))
            #expect(renamed.user.nickname == "Ally")
            #expect(renamed.user.avatarURL == "" && renamed.user.signature == "")

            let attrs = ["city": "Zürich", "quote": "it's \"fine\"", "emoji": "🎉", "url": "https://x.example/a/b"]
            let updated = try await store.updateProfile(
                alice.id, ProfileUpdate(avatarURL: "/v1/media/abc", signature: "on call", attrs: attrs))
            #expect(updated.user.nickname == "Ally")
            #expect(updated.user.avatarURL == "/v1/media/abc")
            #expect(updated.user.signature == "on call")
            #expect(updated.user.attrs == attrs)
            #expect(try await store.user(id: alice.id) == updated)

            let cleared = try await store.updateProfile(alice.id, ProfileUpdate(signature: "", attrs: [:]))
            #expect(cleared.user.signature == "")
            #expect(cleared.user.attrs.isEmpty)
            #expect(cleared.user.avatarURL == "/v1/media/abc")
            #expect(cleared.user.username == "alice" && cleared.passwordHash == alice.passwordHash)
        }
    }

    @Test(arguments: StoreKind.allCases) func updateProfileOfAMissingAccountIsNotFound(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let error = await #expect(throws: StoreError.self) {
                try await store.updateProfile(UserID(rawValue: 42), ProfileUpdate(nickname: "x"))
            }
            #expect(error?.kind == "notFound")
        }
    }

    @Test(arguments: StoreKind.allCases) func profileUpdatesReachTheUserAndThoseWhoHaveThemAsAContact(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")  // has alice as a contact
            let carol = try await store.makeUser("carol")  // unrelated
            let dave = try await store.makeUser("dave")  // alice has dave, not the other way round
            _ = try await store.addContact(bob.id, alice.id)
            _ = try await store.addContact(alice.id, dave.id)

            let updated = try await store.updateProfile(alice.id, ProfileUpdate(nickname: "Ally"))

            func profileEvents(_ user: UserID) async throws -> [Event] {
                try await store.feed(user).filter { $0.type == .profileUpdated }
            }
            for watcher in [alice, bob] {
                let events = try await profileEvents(watcher.id)
                #expect(events.count == 1, "\(watcher.user.username)")
                #expect(events.first?.user == updated.user)
                #expect(events.first?.conversation == nil)
            }
            #expect(try await profileEvents(carol.id).isEmpty)
            #expect(try await profileEvents(dave.id).isEmpty)
        }
    }
}

@Suite struct PasswordTests {
    @Test(arguments: StoreKind.allCases) func setPasswordHashReplacesTheHashAndCanKeepLogins(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice")
            let login = try await store.createToken(hash: [1], userID: alice.id, device: "phone", expiresAt: nil)
            try await store.setPasswordHash(alice.id, "new-hash", revokeTokens: false)
            #expect(try await store.user(id: alice.id)?.passwordHash == "new-hash")
            let token = try #require(try await store.token(hash: [1]))
            #expect(token.0 == login.token)
            #expect(token.1.passwordHash == "new-hash")
        }
    }

    @Test(arguments: StoreKind.allCases) func setPasswordHashWithRevokeEndsEveryLiveLogin(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withStore(kind, clock: clock) { store in
            let alice = try await store.makeUser("alice")
            let bob = try await store.makeUser("bob")
            _ = try await store.createToken(hash: [1], userID: alice.id, device: "phone", expiresAt: nil)
            _ = try await store.createToken(hash: [2], userID: alice.id, device: nil, expiresAt: nil)
            let loggedOut = try await store.createToken(hash: [3], userID: alice.id, device: "tv", expiresAt: nil)
            try await store.revokeToken(id: loggedOut.token.id, reason: "logout")
            _ = try await store.createToken(hash: [4], userID: bob.id, device: "phone", expiresAt: nil)
            clock.advance(milliseconds: 5_000)

            try await store.setPasswordHash(alice.id, "new-hash", revokeTokens: true)

            for hash: UInt8 in [1, 2] {
                let token = try #require(try await store.token(hash: [hash])).0
                #expect(token.revokedReason == "password_changed")
                #expect(token.revokedAt == clock.now)
            }
            #expect(try await store.token(hash: [3])?.0.revokedReason == "logout")
            #expect(try await store.token(hash: [4])?.0.revokedAt == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func setPasswordHashOfAMissingAccountIsNotFound(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let error = await #expect(throws: StoreError.self) {
                try await store.setPasswordHash(UserID(rawValue: 7), "x", revokeTokens: true)
            }
            #expect(error?.kind == "notFound")
        }
    }
}
