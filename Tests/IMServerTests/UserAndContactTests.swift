import Foundation
import IMProtocol
import TestSupport
import Testing

@Suite(.sharedServers) struct UserAndContactTests {
    @Test(arguments: TestStore.allCases) func publicProfileIsFoundWhateverTheCaseOfTheName(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("finder")
        let (_, bob) = try await server.client.newUser("found")
        let answer = try await alice.get("/v1/users/\(bob.username.uppercased())")
        expectStatus(answer, 200)
        #expect(try answer.decode(User.self) == bob)
        expectError(try await alice.get("/v1/users/\(Names.unique("ghost"))"), .notFound)
    }

    @Test(arguments: TestStore.allCases) func batchLookupReturnsFoundUsersInOrderAndListsTheMissing(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("batch")
        let (_, bob) = try await server.client.newUser("b1")
        let (_, carol) = try await server.client.newUser("b2")
        let ghost = Names.unique("ghost")
        let names = [carol.username, ghost, bob.username.uppercased(), carol.username].joined(separator: ",")
        let answer = try await alice.get("/v1/users?names=\(names)")
        expectStatus(answer, 200)
        let list = try answer.decode(UserList.self)
        #expect(list.users.map(\.username) == [carol.username, bob.username])
        #expect(list.missing == [ghost])
    }

    @Test(arguments: TestStore.allCases) func batchLookupNeedsNamesAndAtMostAHundred(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("batch2")
        expectError(try await alice.get("/v1/users"), .invalidRequest, field: "names")
        let many = (0...Limits.namesPerLookup).map { "n\($0)" }.joined(separator: ",")
        expectError(try await alice.get("/v1/users?names=\(many)"), .invalidRequest, field: "names")
    }

    @Test(arguments: TestStore.allCases) func contactsAreAddedListedAndRemoved(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("owner")
        let (_, bob) = try await server.client.newUser("friend")
        let (_, carol) = try await server.client.newUser("friend")

        let added = try await alice.send("PUT", "/v1/contacts/\(bob.username)")
        expectStatus(added, 201)
        #expect(try added.decode(User.self).id == bob.id)
        expectStatus(try await alice.send("PUT", "/v1/contacts/\(bob.username)"), 200)
        expectStatus(try await alice.send("PUT", "/v1/contacts/\(carol.username)"), 201)

        let list = try await alice.get("/v1/contacts").decode(UserList.self)
        #expect(Set(list.users.map(\.id)) == [bob.id, carol.id])

        expectStatus(try await alice.send("DELETE", "/v1/contacts/\(bob.username)"), 204)
        expectError(try await alice.send("DELETE", "/v1/contacts/\(bob.username)"), .notFound)
        #expect(try await alice.get("/v1/contacts").decode(UserList.self).users.map(\.id) == [carol.id])
    }

    @Test(arguments: TestStore.allCases) func contactsAreOneWay(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("oneway")
        let (bob, bobUser) = try await server.client.newUser("oneway")
        expectStatus(try await alice.send("PUT", "/v1/contacts/\(bobUser.username)"), 201)
        #expect(try await bob.get("/v1/contacts").decode(UserList.self).users.isEmpty)
    }

    @Test(arguments: TestStore.allCases) func addingAContactTellsBothSides(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("adder")
        let (bob, bobUser) = try await server.client.newUser("added")
        let aliceCursor = try await alice.cursor()
        let bobCursor = try await bob.cursor()
        expectStatus(try await alice.send("PUT", "/v1/contacts/\(bobUser.username)"), 201)

        let aliceEvents = try await alice.events(after: aliceCursor).events
        let bobEvents = try await bob.events(after: bobCursor).events
        #expect(aliceEvents.map(\.type) == [.contactAdded])
        #expect(aliceEvents.first?.user?.id == bobUser.id)
        #expect(bobEvents.map(\.type) == [.contactAdded])
        #expect(bobEvents.first?.user?.id == aliceUser.id)
        #expect(bobEvents.first?.by == aliceUser.username)
    }

    @Test(arguments: TestStore.allCases) func yourselfOrAnUnknownUserCannotBeAContact(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, me) = try await server.client.newUser("self")
        expectError(try await alice.send("PUT", "/v1/contacts/\(me.username)"), .invalidRequest, field: "name")
        expectError(try await alice.send("PUT", "/v1/contacts/\(Names.unique("ghost"))"), .notFound)
    }

    @Test(arguments: TestStore.allCases) func profileChangesReachThoseWhoHaveYouAsAContact(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("watched")
        let (bob, _) = try await server.client.newUser("watcher")
        let (carol, _) = try await server.client.newUser("stranger")
        expectStatus(try await bob.send("PUT", "/v1/contacts/\(aliceUser.username)"), 201)
        let bobCursor = try await bob.cursor()
        let carolCursor = try await carol.cursor()
        expectStatus(try await alice.send("PATCH", "/v1/me", json: ProfileUpdate(nickname: "New Name")), 200)

        let seen = try await bob.events(after: bobCursor).events
        #expect(seen.map(\.type) == [.profileUpdated])
        #expect(seen.first?.user?.nickname == "New Name")
        #expect(try await carol.events(after: carolCursor).events.isEmpty)
    }
}
