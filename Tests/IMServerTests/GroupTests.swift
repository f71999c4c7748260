import Foundation
import IMProtocol
import TestSupport
import Testing

@Suite(.sharedServers) struct GroupTests {
    @Test(arguments: TestStore.allCases) func creatingAGroupAnswers201AndMakesTheCreatorItsOwner(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
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

    @Test(arguments: TestStore.allCases) func aGroupNameTakenInAnyCaseIsAConflict(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("dup")
        let (bob, _) = try await server.client.newUser("dup")
        let name = Names.unique("dup")
        try await alice.create(.group, name)
        let again = try await bob.send("POST", "/v1/groups", json: CreateConversationRequest(name: name.uppercased()))
        expectError(again, .conflict, field: "name")
    }

    @Test(arguments: TestStore.allCases) func joiningAddsAMemberOnceAndMembersListsEveryone(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("owner")
        let (bob, bobUser) = try await server.client.newUser("joiner")
        let name = Names.unique("club")
        try await alice.create(.group, name, join: .open)
        let joined = try await bob.join(.group, name)
        #expect(joined.memberCount == 2)
        // Joining again changes nothing.
        #expect(try await bob.join(.group, name).memberCount == 2)
        let members = try await bob.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(members.map(\.user.id) == [aliceUser.id, bobUser.id])
        #expect(members.map(\.role) == [.owner, .member])
    }

    @Test(arguments: TestStore.allCases) func leavingRemovesTheMemberAndASecondLeaveIsRefused(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("stay")
        let (bob, _) = try await server.client.newUser("go")
        let name = Names.unique("club")
        try await alice.create(.group, name, join: .open)
        try await bob.join(.group, name)
        try await bob.leave(.group, name)
        let members = try await alice.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(members.map(\.user.id) == [aliceUser.id])
        expectError(try await bob.send("POST", "/v1/groups/\(name)/leave"), .forbidden, reason: "not_member")
        #expect(try await alice.get("/v1/groups/\(name)").decode(ConversationInfo.self).memberCount == 1)
    }

    @Test(arguments: TestStore.allCases) func anOpenGroupsInfoIsPublicToLoggedInUsers(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("pub")
        let (carol, _) = try await server.client.newUser("outsider")
        let name = Names.unique("open")
        try await alice.create(.group, name, join: .open)
        let answer = try await carol.get("/v1/groups/\(name.uppercased())")
        expectStatus(answer, 200)
        #expect(try answer.decode(ConversationInfo.self).name == name)
        expectError(try await carol.get("/v1/groups/\(Names.unique("none"))"), .notFound)
    }

    /// Issue 11, item 4: `info_editable_by` (default admins) says who changes title, logo
    /// and description; the settings are always the owner's and admins'.
    @Test(arguments: TestStore.allCases) func onlyAdminsChangeTheInfoUnlessTheGroupLetsMembers(_ store: TestStore)
        async throws
    {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("owner")
        let (bob, _) = try await server.client.newUser("member")
        let name = Names.unique("editable")
        let created = try await alice.create(.group, name, join: .open)
        #expect(created.infoEditableBy == .admins)
        try await bob.join(.group, name)
        let change = ConversationInfoUpdate(title: "Editors", logoURL: "https://example.com/logo.png")
        expectError(try await bob.send("PATCH", "/v1/groups/\(name)", json: change), .forbidden, reason: "not_group_admin")
        expectError(
            try await bob.send("PATCH", "/v1/groups/\(name)", json: ConversationInfoUpdate(infoEditableBy: .members)),
            .forbidden, reason: "not_group_admin")
        let opened = try await alice.send("PATCH", "/v1/groups/\(name)", json: ConversationInfoUpdate(infoEditableBy: .members))
        #expect(try opened.decode(ConversationInfo.self).infoEditableBy == .members)

        let answer = try await bob.send("PATCH", "/v1/groups/\(name)", json: change)
        expectStatus(answer, 200)
        let info = try answer.decode(ConversationInfo.self)
        #expect(info.title == "Editors")
        #expect(info.logoURL == "https://example.com/logo.png")
        #expect(info.description == "")
        #expect(try await alice.get("/v1/groups/\(name)").decode(ConversationInfo.self) == info)
        // Settings stay the admins' even then.
        expectError(
            try await bob.send("PATCH", "/v1/groups/\(name)", json: ConversationInfoUpdate(join: .invite)),
            .forbidden, reason: "not_group_admin")
    }

    @Test(arguments: TestStore.allCases) func anEmptyPatchIsInvalid(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("empty")
        let name = Names.unique("g")
        try await alice.create(.group, name)
        expectError(try await alice.send("PATCH", "/v1/groups/\(name)", raw: "{}"), .invalidRequest)
    }

    @Test(arguments: TestStore.allCases) func myGroupsListsOnlyTheGroupsIAmIn(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("lister")
        let (bob, _) = try await server.client.newUser("other")
        let mine = Names.unique("mine")
        let joined = Names.unique("joined")
        let foreign = Names.unique("foreign")
        let left = Names.unique("left")
        try await alice.create(.group, mine)
        try await bob.create(.group, joined, join: .open)
        try await bob.create(.group, foreign, join: .open)
        try await bob.create(.group, left, join: .open)
        try await alice.join(.group, joined)
        try await alice.join(.group, left)
        try await alice.leave(.group, left)
        let answer = try await alice.get("/v1/groups")
        expectStatus(answer, 200)
        let names = try answer.decode(ConversationInfoList.self).items.map(\.name)
        #expect(names == [joined, mine].sorted())
    }

    @Test(arguments: TestStore.allCases) func joiningAnUnknownGroupIsNotFound(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("lost")
        expectError(try await alice.send("POST", "/v1/groups/\(Names.unique("nowhere"))/join"), .notFound)
    }

    @Test(arguments: TestStore.allCases) func aGroupIsInviteOnlyUnlessMadeOpen(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("maker")
        let closed = try await alice.create(.group, Names.unique("closed"))
        let open = try await alice.create(.group, Names.unique("open"), join: .open)
        #expect(closed.join == .invite)
        #expect(open.join == .open)
        let bad = try await alice.send("POST", "/v1/groups", raw: #"{"name":"\#(Names.unique("x"))","join":"secret"}"#)
        expectError(bad, .invalidRequest, field: "join")
        let room = try await alice.send("POST", "/v1/rooms", json: CreateConversationRequest(name: Names.unique("r"), join: .open))
        expectError(room, .invalidRequest, field: "join")
    }

    /// Issue 8, item 7: an invite-only group is invisible to whoever is not in it: info,
    /// members, history, sending and joining all answer 404 as for no group at all.
    @Test(arguments: TestStore.allCases) func anInviteOnlyGroupIsInvisibleToOutsiders(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("insider")
        let (mallory, _) = try await server.client.newUser("outsider")
        let name = Names.unique("secret")
        try await alice.create(.group, name)
        try await alice.message("group:\(name)", "the plan")
        let missing = Names.unique("missing")
        for (path, method) in [
            ("/v1/groups/\(name)", "GET"), ("/v1/groups/\(name)/members", "GET"),
            ("/v1/conversations/group:\(name)/messages", "GET"), ("/v1/groups/\(name)/join", "POST"),
            ("/v1/groups/\(name)/leave", "POST"),
        ] {
            let answer = try await mallory.send(method, path)
            expectError(answer, .notFound)
            let absent = try await mallory.send(method, path.replacingOccurrences(of: name, with: missing))
            #expect(answer.error?.message == absent.error?.message.replacingOccurrences(of: missing, with: name), "\(path)")
        }
        let sent = try await mallory.send(
            "POST", "/v1/conversations/group:\(name)/messages", json: SendMessageRequest(text: "let me in"))
        expectError(sent, .notFound)
        // Names are unique server-wide: taking it anyway says so.
        expectError(try await mallory.send("POST", "/v1/groups", json: CreateConversationRequest(name: name)), .conflict)
        #expect(try await alice.history("group:\(name)").messages.map(\.text).contains("the plan"))
    }

    /// Issue 8, item 7: the owner (or a group admin, or a server administrator) invites;
    /// the invited account sees the info and accepts by joining, once.
    @Test(arguments: TestStore.allCases) func theOwnerInvitesAndTheInvitedJoin(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("owner")
        let (bob, bobUser) = try await server.client.newUser("guest")
        let (carol, carolUser) = try await server.client.newUser("member")
        let name = Names.unique("invited")
        try await alice.create(.group, name)
        let answer = try await alice.send("POST", "/v1/groups/\(name)/invites", json: GroupInviteRequest(user: bobUser.username))
        expectStatus(answer, 201)
        #expect(try answer.decode(GroupInvite.self).user == bobUser.username)
        expectStatus(try await bob.get("/v1/groups/\(name)"), 200)
        expectError(try await bob.get("/v1/groups/\(name)/members"), .notFound)
        #expect(try await bob.join(.group, name).memberCount == 2)
        // A plain member may not invite; inviting a member again is a conflict.
        try await alice.invite(carolUser.username, to: name)
        try await carol.join(.group, name)
        let byMember = try await carol.send("POST", "/v1/groups/\(name)/invites", json: GroupInviteRequest(user: "someone"))
        expectError(byMember, .forbidden, reason: "not_group_admin")
        expectError(
            try await alice.send("POST", "/v1/groups/\(name)/invites", json: GroupInviteRequest(user: bobUser.username)),
            .conflict, field: "user")
        expectError(
            try await alice.send("POST", "/v1/groups/\(name)/invites", json: GroupInviteRequest(user: Names.unique("ghost"))),
            .notFound)
        // With the account's id, only that account: a name that now belongs to another is 404.
        let (_, daveUser) = try await server.client.newUser("renamed")
        expectError(
            try await alice.send("POST", "/v1/groups/\(name)/invites",
                                 json: GroupInviteRequest(user: daveUser.username, userID: carolUser.id)),
            .notFound, field: "user_id")
        expectStatus(
            try await alice.send("POST", "/v1/groups/\(name)/invites",
                                 json: GroupInviteRequest(user: daveUser.username, userID: daveUser.id)), 201)
        // The invitation was used up: after leaving, bob cannot come back uninvited.
        try await bob.leave(.group, name)
        expectError(try await bob.send("POST", "/v1/groups/\(name)/join"), .notFound)
    }

    @Test(arguments: TestStore.allCases) func aServerAdministratorInvitesToAnyGroup(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (bot, _) = try await server.client.newUser("bot")
        let (alice, aliceUser) = try await server.client.newUser("oncall")
        let (admin, _) = try await server.createAccount(Names.unique("ops"), admin: true)
        let name = Names.unique("pager")
        try await bot.create(.group, name)
        expectStatus(try await admin.get("/v1/groups/\(name)"), 200)
        expectError(try await admin.get("/v1/conversations/group:\(name)/messages"), .notFound)
        try await admin.invite(aliceUser.username, to: name)
        #expect(try await alice.join(.group, name).memberCount == 2)
    }
}
