import Foundation
import IMProtocol
import TestSupport
import Testing

@Suite(.sharedServer) struct RoomTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }

    @Test func creatingARoomThatExistsEntersIt() async throws {
        let (alice, aliceUser) = try await server.client.newUser("first")
        let (bob, bobUser) = try await server.client.newUser("second")
        let name = Names.unique("lobby")
        let created = try await alice.send("POST", "/v1/rooms", json: CreateConversationRequest(name: name))
        expectStatus(created, 201)
        let info = try created.decode(ConversationInfo.self)
        #expect(info.kind == .room)
        #expect(info.memberCount == 1)

        let entered = try await bob.send("POST", "/v1/rooms", json: CreateConversationRequest(name: name.uppercased()))
        expectStatus(entered, 200)
        let same = try entered.decode(ConversationInfo.self)
        #expect(same.id == info.id)
        #expect(same.memberCount == 2)
        let present = try await alice.get("/v1/rooms/\(name)/members").decode(MemberList.self).members
        #expect(present.map(\.user.id) == [aliceUser.id, bobUser.id])
    }

    @Test func enteringAndLeavingChangesWhoIsPresent() async throws {
        let (alice, aliceUser) = try await server.client.newUser("host")
        let (bob, _) = try await server.client.newUser("visitor")
        let name = Names.unique("hall")
        try await alice.create(.room, name)
        #expect(try await bob.join(.room, name).memberCount == 2)
        try await bob.leave(.room, name)
        let present = try await alice.get("/v1/rooms/\(name)/members").decode(MemberList.self).members
        #expect(present.map(\.user.id) == [aliceUser.id])
        expectError(try await bob.send("POST", "/v1/rooms/\(name)/leave"), .forbidden, reason: "not_present")
        // Entering again is allowed.
        #expect(try await bob.join(.room, name).memberCount == 2)
    }

    @Test func roomInfoAndMyRooms() async throws {
        let (alice, _) = try await server.client.newUser("roomer")
        let (bob, _) = try await server.client.newUser("roomer")
        let mine = Names.unique("mine")
        let theirs = Names.unique("theirs")
        try await alice.create(.room, mine)
        try await bob.create(.room, theirs)
        let info = try await alice.get("/v1/rooms/\(theirs)")
        expectStatus(info, 200)
        #expect(try info.decode(ConversationInfo.self).name == theirs)
        let list = try await alice.get("/v1/rooms").decode(ConversationInfoList.self).items.map(\.name)
        #expect(list == [mine])
        expectError(try await alice.get("/v1/rooms/\(Names.unique("none"))"), .notFound)
        expectError(try await alice.send("POST", "/v1/rooms/\(Names.unique("none"))/enter"), .notFound)
    }

    @Test func aPresentMemberMayChangeTheRoomInfo() async throws {
        let (alice, _) = try await server.client.newUser("host")
        let (bob, _) = try await server.client.newUser("guest")
        let name = Names.unique("salon")
        try await alice.create(.room, name)
        try await bob.join(.room, name)
        let answer = try await bob.send("PATCH", "/v1/rooms/\(name)", json: ConversationInfoUpdate(description: "chat here"))
        expectStatus(answer, 200)
        #expect(try answer.decode(ConversationInfo.self).description == "chat here")
    }

    @Test func aGroupAndARoomMayShareAName() async throws {
        let (alice, _) = try await server.client.newUser("both")
        let name = Names.unique("shared")
        let group = try await alice.create(.group, name)
        let room = try await alice.create(.room, name)
        #expect(group.id != room.id)
        try await alice.message("group:\(name)", "to the group")
        let roomHistory = try await alice.history("room:\(name)").messages
        #expect(!roomHistory.contains { $0.text == "to the group" })
    }
}
