import Foundation
import IMProtocol
import TestSupport
import Testing

/// Issue 11, item 2: who may join. Open groups, approval groups with join requests,
/// invite-only groups with invitations; pending ones listed and revocable; `via` on
/// `member_joined`; restricted newcomers; rooms that show a newcomer nothing earlier.
@Suite(.sharedServers) struct GroupAdmissionTests {

    private func create(_ client: TestClient, _ request: CreateConversationRequest) async throws {
        expectStatus(try await client.send("POST", "/v1/groups", json: request), 201)
    }

    @Test(arguments: TestStore.allCases) func anApprovalGroupShowsOutsidersOnlyItsNameAndDescription(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (outsider, _) = try await server.client.newUser("outsider")
        let name = Names.unique("club")
        try await create(
            owner,
            CreateConversationRequest(name: name, title: "The Club", description: "ask to join", join: .approval))
        try await owner.message("group:\(name)", "members only")

        let preview = try await outsider.get("/v1/groups/\(name)").decode(ConversationInfo.self)
        #expect(preview.preview == true && preview.name == name && preview.description == "ask to join")
        #expect(preview.join == .approval && preview.title == name && preview.memberCount == 0 && preview.createdBy == nil)
        let full = try await owner.get("/v1/groups/\(name)").decode(ConversationInfo.self)
        #expect(full.preview == nil && full.title == "The Club" && full.memberCount == 1)
        for (method, path) in [
            ("GET", "/v1/groups/\(name)/members"), ("GET", "/v1/conversations/group:\(name)/messages"),
        ] {
            expectError(try await outsider.send(method, path), .forbidden, reason: "not_member")
        }
        expectError(
            try await outsider.send("POST", "/v1/conversations/group:\(name)/messages", json: SendMessageRequest(text: "hi")),
            .forbidden, reason: "not_member")
    }

    /// Issue 11, item 2: a join request waits for an admin, who is told; approving lets
    /// the one asking in with `via: approval`; pending requests are listed for both sides.
    @Test(arguments: TestStore.allCases) func aJoinRequestWaitsForAnAdminWhoApprovesIt(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, ownerUser) = try await server.client.newUser("owner")
        let (asker, askerUser) = try await server.client.newUser("asker")
        let name = Names.unique("club")
        try await create(owner, CreateConversationRequest(name: name, join: .approval))
        let ownerCursor = try await owner.cursor()
        let askerCursor = try await asker.cursor()

        let asked = try await asker.send("POST", "/v1/groups/\(name)/join")
        expectStatus(asked, 202)
        let request = try asked.decode(GroupJoinRequest.self)
        #expect(request.group == name && request.user == askerUser.username)
        // Asking again changes nothing.
        #expect(try await asker.send("POST", "/v1/groups/\(name)/join").decode(GroupJoinRequest.self) == request)
        #expect(try await asker.get("/v1/me/requests").decode(GroupJoinRequestList.self).requests == [request])
        let listed = try await owner.get("/v1/groups/\(name)/requests").decode(GroupJoinRequestList.self).requests
        #expect(listed == [request])
        let told = try await owner.events(after: ownerCursor).events
        #expect(told.map(\.type) == [.joinRequested] && told.first?.user?.id == askerUser.id)
        #expect(try await asker.events(after: askerCursor).events.map(\.type) == [.joinRequested])

        let approved = try await owner.send("POST", "/v1/groups/\(name)/requests/\(askerUser.username)/approve")
        expectStatus(approved, 200)
        #expect(try approved.decode(Member.self).user.id == askerUser.id)
        let joined = try #require(try await owner.events(after: ownerCursor).events.last)
        #expect(joined.type == .memberJoined && joined.via == .approval && joined.by == ownerUser.username)
        #expect(joined.message?.text == "\(askerUser.username) joined the group (approved by \(ownerUser.username))")
        try await asker.message("group:\(name)", "thanks for letting me in")
        #expect(try await asker.get("/v1/me/requests").decode(GroupJoinRequestList.self).requests.isEmpty)
        expectError(try await owner.send("POST", "/v1/groups/\(name)/requests/\(askerUser.username)/approve"), .notFound)
    }

    @Test(arguments: TestStore.allCases) func aRequestIsDeniedByAnAdminOrWithdrawnByTheOneAsking(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (asker, askerUser) = try await server.client.newUser("asker")
        let (member, memberUser) = try await server.client.newUser("member")
        let name = Names.unique("club")
        try await create(owner, CreateConversationRequest(name: name, join: .approval))
        try await owner.invite(memberUser.username, to: name)
        try await member.join(.group, name)

        expectStatus(try await asker.send("POST", "/v1/groups/\(name)/join"), 202)
        let cursor = try await asker.cursor()
        expectError(try await member.send("GET", "/v1/groups/\(name)/requests"), .forbidden, reason: "not_group_admin")
        expectError(
            try await member.send("DELETE", "/v1/groups/\(name)/requests/\(askerUser.username)"), .forbidden,
            reason: "not_group_admin")
        expectStatus(try await owner.send("DELETE", "/v1/groups/\(name)/requests/\(askerUser.username)"), 204)
        #expect(try await asker.events(after: cursor).events.map(\.type) == [.joinRequestRevoked])
        expectError(try await owner.send("DELETE", "/v1/groups/\(name)/requests/\(askerUser.username)"), .notFound)

        expectStatus(try await asker.send("POST", "/v1/groups/\(name)/join"), 202)
        expectStatus(try await asker.send("DELETE", "/v1/groups/\(name)/requests/\(askerUser.username)"), 204)
        #expect(try await owner.get("/v1/groups/\(name)/requests").decode(GroupJoinRequestList.self).requests.isEmpty)
        // An invitation lets the one asking straight in, policy or not, and their request
        // has nothing left to wait for.
        expectStatus(try await asker.send("POST", "/v1/groups/\(name)/join"), 202)
        try await owner.invite(askerUser.username, to: name)
        #expect(try await asker.join(.group, name).memberCount == 3)
        #expect(try await owner.get("/v1/groups/\(name)/requests").decode(GroupJoinRequestList.self).requests.isEmpty)
        #expect(try await asker.get("/v1/me/requests").decode(GroupJoinRequestList.self).requests.isEmpty)
    }

    /// Issue 11, item 2: the invited user sees an event and accepts by joining; pending
    /// invitations are listed and can be declined or withdrawn.
    @Test(arguments: TestStore.allCases) func invitationsAreToldListedDeclinedAndWithdrawn(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, ownerUser) = try await server.client.newUser("owner")
        let (guest, guestUser) = try await server.client.newUser("guest")
        let (other, otherUser) = try await server.client.newUser("other")
        let name = Names.unique("closed")
        try await owner.create(.group, name)
        let guestCursor = try await guest.cursor()
        let ownerCursor = try await owner.cursor()

        let answer = try await owner.send("POST", "/v1/groups/\(name)/invites", json: GroupInviteRequest(user: guestUser.username))
        expectStatus(answer, 201)
        let invitation = try answer.decode(GroupInvite.self)
        // Inviting again changes nothing.
        expectStatus(try await owner.send("POST", "/v1/groups/\(name)/invites", json: GroupInviteRequest(user: guestUser.username)), 200)
        let told = try await guest.events(after: guestCursor).events
        #expect(told.map(\.type) == [.memberInvited])
        #expect(told.first?.by == ownerUser.username && told.first?.conversation?.address == .group(name))
        let notice = try #require(try await owner.events(after: ownerCursor).events.first)
        #expect(notice.type == .memberInvited && notice.message?.text == "\(ownerUser.username) invited \(guestUser.username)")
        #expect(try await guest.get("/v1/me/invites").decode(GroupInviteList.self).invites == [invitation])
        #expect(try await owner.get("/v1/groups/\(name)/invites").decode(GroupInviteList.self).invites == [invitation])

        // The guest declines; the owner withdraws another.
        expectStatus(try await guest.send("DELETE", "/v1/groups/\(name)/invites/\(guestUser.username)"), 204)
        #expect(try await guest.events(after: guestCursor).events.map(\.type) == [.memberInvited, .inviteRevoked])
        expectError(try await guest.send("POST", "/v1/groups/\(name)/join"), .notFound)
        try await owner.invite(otherUser.username, to: name)
        expectStatus(try await owner.send("DELETE", "/v1/groups/\(name)/invites/\(otherUser.username)"), 204)
        expectError(try await other.send("POST", "/v1/groups/\(name)/join"), .notFound)
        #expect(try await owner.get("/v1/groups/\(name)/invites").decode(GroupInviteList.self).invites.isEmpty)
        expectError(try await owner.send("DELETE", "/v1/groups/\(name)/invites/\(otherUser.username)"), .notFound)
    }

    /// Issue 11, item 2: `member_joined` says how (`via: open | invite | approval`).
    @Test(arguments: TestStore.allCases) func memberJoinedSaysHowTheMemberCameIn(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (walker, _) = try await server.client.newUser("walker")
        let (guest, guestUser) = try await server.client.newUser("guest")
        let name = Names.unique("open")
        try await owner.create(.group, name, join: .open)
        let cursor = try await owner.cursor()
        try await walker.join(.group, name)
        try await owner.invite(guestUser.username, to: name)
        try await guest.join(.group, name)
        let joins = try await owner.events(after: cursor).events.filter { $0.type == .memberJoined }
        #expect(joins.map(\.via) == [.open, .invite])
        let created = try await owner.history("group:\(name)").messages.last
        #expect(created?.text.hasSuffix("created the group") == true)
    }

    /// Issue 11, item 2: `new_members: restricted` keeps a newcomer from posting, from the
    /// very join (the restriction is written in the same transaction as the membership,
    /// so no first post slips through), until an admin lets them.
    @Test(arguments: TestStore.allCases) func aRestrictedNewcomerPostsOnlyOnceAnAdminLetsThem(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (newcomer, newcomerUser) = try await server.client.newUser("newcomer")
        let name = Names.unique("careful")
        try await create(owner, CreateConversationRequest(name: name, join: .open, newMembers: .restricted))
        try await owner.message("group:\(name)", "the owner is never restricted")
        try await newcomer.join(.group, name)
        let first = try await newcomer.send(
            "POST", "/v1/conversations/group:\(name)/messages", json: SendMessageRequest(text: "buy my stuff"))
        expectError(first, .forbidden, reason: "restricted")
        #expect(first.error?.message.contains("answer the question its moderator bot sent you in a direct message") == true,
                "the refusal says what to do")
        let listed = try await owner.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(listed.first { $0.user.id == newcomerUser.id }?.restricted == true)
        let lifted = try await owner.send(
            "POST", "/v1/groups/\(name)/moderation", json: ModerationRequest(action: .unmute, user: newcomerUser.username))
        #expect(try lifted.decode(ModerationResult.self).changed)
        try await newcomer.message("group:\(name)", "hello, everyone")
        #expect(!(try await newcomer.history("group:\(name)").messages.contains { $0.text == "buy my stuff" }))
    }

    /// Issue 11's test list: a room newcomer reads nothing from before they entered, and
    /// after leaving and coming back, nothing said while they were away.
    @Test(arguments: TestStore.allCases) func aRoomNewcomerReadsNothingFromBeforeTheyEntered(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (host, _) = try await server.client.newUser("host")
        let (guest, guestUser) = try await server.client.newUser("guest")
        let name = Names.unique("hall")
        try await host.create(.room, name)
        try await host.message("room:\(name)", "said before anyone came")
        try await guest.join(.room, name)
        var history = try await guest.history("room:\(name)").messages
        #expect(history.map(\.text) == ["\(guestUser.username) entered the room"])
        try await host.message("room:\(name)", "said while present")
        history = try await guest.history("room:\(name)").messages
        #expect(history.map(\.text) == ["said while present", "\(guestUser.username) entered the room"])
        #expect(try await guest.history("room:\(name)", limit: 1).nextBefore != nil)
        #expect(try await guest.history("room:\(name)", limit: 2).nextBefore == nil)

        try await guest.leave(.room, name)
        try await host.message("room:\(name)", "said while away")
        try await guest.join(.room, name)
        let texts = try await guest.history("room:\(name)", limit: 200).messages.map(\.text)
        #expect(!texts.contains("said before anyone came") && !texts.contains("said while away"))
        let row = try #require(try await guest.conversations().first { $0.address == .room(name) })
        #expect(row.lastMessage?.text == "\(guestUser.username) entered the room")
        // The host, present all along, reads everything.
        let all = try await host.history("room:\(name)", limit: 200).messages.map(\.text)
        #expect(all.contains("said before anyone came") && all.contains("said while away"))
    }

    /// Issue 11's test list: a private group is indistinguishable from a missing one to
    /// outsiders, on every endpoint of this issue too.
    @Test(arguments: TestStore.allCases) func anInviteOnlyGroupIsIndistinguishableFromAMissingOne(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (outsider, _) = try await server.client.newUser("outsider")
        let (_, someone) = try await server.client.newUser("someone")
        let name = Names.unique("secret")
        try await owner.create(.group, name)
        let sent = try await owner.message("group:\(name)", "the plan")
        let missing = Names.unique("missing")
        let calls: [(String, String, Data?)] = [
            ("GET", "/v1/groups/\(name)", nil), ("GET", "/v1/groups/\(name)/members", nil),
            ("GET", "/v1/groups/\(name)/invites", nil), ("GET", "/v1/groups/\(name)/requests", nil),
            ("GET", "/v1/groups/\(name)/bans", nil), ("POST", "/v1/groups/\(name)/join", nil),
            ("POST", "/v1/groups/\(name)/leave", nil),
            ("PATCH", "/v1/groups/\(name)", try WireJSON.encoder().encode(ConversationInfoUpdate(title: "mine"))),
            ("POST", "/v1/groups/\(name)/invites", try WireJSON.encoder().encode(GroupInviteRequest(user: someone.username))),
            ("DELETE", "/v1/groups/\(name)/invites/\(someone.username)", nil),
            ("POST", "/v1/groups/\(name)/requests/\(someone.username)/approve", nil),
            ("DELETE", "/v1/groups/\(name)/requests/\(someone.username)", nil),
            (
                "POST", "/v1/groups/\(name)/moderation",
                try WireJSON.encoder().encode(ModerationRequest(action: .ban, user: someone.username))
            ),
            ("GET", "/v1/conversations/group:\(name)/messages", nil),
            ("POST", "/v1/conversations/group:\(name)/messages", try WireJSON.encoder().encode(SendMessageRequest(text: "x"))),
            ("DELETE", "/v1/conversations/group:\(name)/messages/\(sent.id)", nil),
        ]
        for (method, path, body) in calls {
            let answer = try await outsider.send(method, path, body: body)
            let absent = try await outsider.send(method, path.replacingOccurrences(of: name, with: missing), body: body)
            expectError(answer, .notFound)
            #expect(answer.status == absent.status, "\(method) \(path)")
            #expect(
                answer.error?.message == absent.error?.message.replacingOccurrences(of: missing, with: name),
                "\(method) \(path)")
        }
        #expect(try await owner.history("group:\(name)").messages.first?.text == "the plan")
    }
}
