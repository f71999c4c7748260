import Foundation
import IMProtocol
import TestSupport
import Testing

@Suite(.sharedServer) struct GroupTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }

    @Test func creatingAGroupAnswers201AndMakesTheCreatorItsOwner() async throws {
        let (alice, aliceUser) = try await server.client.newUser("founder")
        let name = Names.unique("Team")
        let answer = try await alice.send(
            "POST", "/v1/groups", json: CreateConversationRequest(name: name, description: "the team"))
        expectStatus(answer, 201)
        let info = try answer.decode(ConversationInfo.self)
        #expect(info.kind == .group)
        #expect(info.name == name.lowercased())
        #expect(info.title == name.lowercased())
        #expect(info.description == "the team")
        #expect(info.memberCount == 1)
        #expect(info.createdBy == aliceUser.username)

        let members = try await alice.get("/v1/groups/\(info.name)/members").decode(MemberList.self).members
        #expect(members.map(\.user.id) == [aliceUser.id])
        #expect(members.map(\.role) == [.owner])
    }

    @Test func aGroupNameTakenInAnyCaseIsAConflict() async throws {
        let (alice, _) = try await server.client.newUser("dup")
        let (bob, _) = try await server.client.newUser("dup")
        let name = Names.unique("dup")
        try await alice.create(.group, name)
        let again = try await bob.send("POST", "/v1/groups", json: CreateConversationRequest(name: name.uppercased()))
        expectError(again, .conflict, field: "name")
    }

    @Test func joiningAddsAMemberOnceAndMembersListsEveryone() async throws {
        let (alice, aliceUser) = try await server.client.newUser("owner")
        let (bob, bobUser) = try await server.client.newUser("joiner")
        let name = Names.unique("club")
        try await alice.create(.group, name)
        let joined = try await bob.join(.group, name)
        #expect(joined.memberCount == 2)
        // Joining again changes nothing.
        #expect(try await bob.join(.group, name).memberCount == 2)
        let members = try await bob.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(members.map(\.user.id) == [aliceUser.id, bobUser.id])
        #expect(members.map(\.role) == [.owner, .member])
    }

    @Test func leavingRemovesTheMemberAndASecondLeaveIsRefused() async throws {
        let (alice, aliceUser) = try await server.client.newUser("stay")
        let (bob, _) = try await server.client.newUser("go")
        let name = Names.unique("club")
        try await alice.create(.group, name)
        try await bob.join(.group, name)
        try await bob.leave(.group, name)
        let members = try await alice.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(members.map(\.user.id) == [aliceUser.id])
        expectError(try await bob.send("POST", "/v1/groups/\(name)/leave"), .forbidden, reason: "not_member")
        #expect(try await alice.get("/v1/groups/\(name)").decode(ConversationInfo.self).memberCount == 1)
    }

    @Test func groupInfoIsPublicToLoggedInUsers() async throws {
        let (alice, _) = try await server.client.newUser("pub")
        let (carol, _) = try await server.client.newUser("outsider")
        let name = Names.unique("open")
        try await alice.create(.group, name)
        let answer = try await carol.get("/v1/groups/\(name.uppercased())")
        expectStatus(answer, 200)
        #expect(try answer.decode(ConversationInfo.self).name == name)
        expectError(try await carol.get("/v1/groups/\(Names.unique("none"))"), .notFound)
    }

    @Test func anyMemberMayChangeTheGroupInfo() async throws {
        let (alice, _) = try await server.client.newUser("owner")
        let (bob, _) = try await server.client.newUser("member")
        let name = Names.unique("editable")
        try await alice.create(.group, name)
        try await bob.join(.group, name)
        let answer = try await bob.send(
            "PATCH", "/v1/groups/\(name)",
            json: ConversationInfoUpdate(title: "Editors", logoURL: "https://example.com/logo.png"))
        expectStatus(answer, 200)
        let info = try answer.decode(ConversationInfo.self)
        #expect(info.title == "Editors")
        #expect(info.logoURL == "https://example.com/logo.png")
        #expect(info.description == "")
        #expect(try await alice.get("/v1/groups/\(name)").decode(ConversationInfo.self) == info)
    }

    @Test func anEmptyPatchIsInvalid() async throws {
        let (alice, _) = try await server.client.newUser("empty")
        let name = Names.unique("g")
        try await alice.create(.group, name)
        expectError(try await alice.send("PATCH", "/v1/groups/\(name)", raw: "{}"), .invalidRequest)
    }

    @Test func myGroupsListsOnlyTheGroupsIAmIn() async throws {
        let (alice, _) = try await server.client.newUser("lister")
        let (bob, _) = try await server.client.newUser("other")
        let mine = Names.unique("mine")
        let joined = Names.unique("joined")
        let foreign = Names.unique("foreign")
        let left = Names.unique("left")
        try await alice.create(.group, mine)
        try await bob.create(.group, joined)
        try await bob.create(.group, foreign)
        try await bob.create(.group, left)
        try await alice.join(.group, joined)
        try await alice.join(.group, left)
        try await alice.leave(.group, left)
        let answer = try await alice.get("/v1/groups")
        expectStatus(answer, 200)
        let names = try answer.decode(ConversationInfoList.self).items.map(\.name)
        #expect(names == [joined, mine].sorted())
    }

    @Test func joiningAnUnknownGroupIsNotFound() async throws {
        let (alice, _) = try await server.client.newUser("lost")
        expectError(try await alice.send("POST", "/v1/groups/\(Names.unique("nowhere"))/join"), .notFound)
    }
}
