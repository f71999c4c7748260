import Foundation
import IMProtocol
import Lifecycle
import TestSupport
import Testing

/// Issue 11, items 4 and 6: slow mode (a member posts once per interval; owner and admins
/// are not slowed) and blocks in one-to-one conversations.
@Suite(.sharedServers) struct SlowModeAndBlockTests {

    private func post(_ client: TestClient, _ address: String, _ text: String) async throws -> TestClient.Answer {
        try await client.send("POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: text))
    }

    @Test(arguments: TestStore.allCases) func slowModeLetsAMemberPostOncePerIntervalOnTheServersClock(_ store: TestStore) async throws {
        let time = ManualTime()
        try await withServer(store: store, time: time) { server in
            let (owner, _) = try await server.client.newUser("owner")
            let (member, _) = try await server.client.newUser("member")
            let name = Names.unique("calm")
            let created = try await owner.send(
                "POST", "/v1/groups", json: CreateConversationRequest(name: name, join: .open, slowMode: ConfigDuration("30s")))
            #expect(try created.decode(ConversationInfo.self).slowMode == ConfigDuration(seconds: 30))
            try await member.join(.group, name)

            try await member.message("group:\(name)", "first")
            let second = try await post(member, "group:\(name)", "second")
            expectError(second, .rateLimited, reason: "slow_mode")
            #expect(second.error?.retryAfter == 30 && second.header("Retry-After") == "30")
            time.advance(by: .seconds(29))
            #expect(try await post(member, "group:\(name)", "still too soon").error?.retryAfter == 1)
            time.advance(by: .seconds(1))
            try await member.message("group:\(name)", "second, in time")
            // An edit is a post: refused within the interval, and it starts the interval again.
            let path = "/v1/conversations/group:\(name)/messages/\(try await member.history("group:\(name)").messages[0].id)"
            let early = try await member.send("PATCH", path, json: EditMessageRequest(text: "second, edited"))
            expectError(early, .rateLimited, reason: "slow_mode")
            time.advance(by: .seconds(30))
            expectStatus(try await member.send("PATCH", path, json: EditMessageRequest(text: "second, edited")), 200)
            #expect(try await post(member, "group:\(name)", "right after the edit").error?.reason == "slow_mode")
            time.advance(by: .seconds(30))
            // The owner (and admins) are not slowed.
            for index in 1...3 { try await owner.message("group:\(name)", "announcement \(index)") }
            let texts = try await owner.history("group:\(name)").messages.filter { $0.type == .chat }.map(\.text)
            #expect(!texts.contains("second") && !texts.contains("still too soon"))

            // Turned off with 0.
            expectStatus(try await owner.send("PATCH", "/v1/groups/\(name)", json: ConversationInfoUpdate(slowMode: ConfigDuration(seconds: 0))), 200)
            try await member.message("group:\(name)", "free")
            try await member.message("group:\(name)", "flowing")
        }
    }

    @Test(arguments: TestStore.allCases) func slowModeIsASettingOfGroupsWithinBounds(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (member, _) = try await server.client.newUser("member")
        let name = Names.unique("bounds")
        try await owner.create(.group, name, join: .open)
        try await member.join(.group, name)
        for (raw, field) in [
            (#"{"slow_mode":"2d"}"#, "slow_mode"), (#"{"slow_mode":"1.5s"}"#, "slow_mode"), (#"{"slow_mode":"soon"}"#, "slow_mode"),
            (#"{"new_members":"some"}"#, "new_members"), (#"{"info_editable_by":"everyone"}"#, "info_editable_by"),
        ] {
            expectError(try await owner.send("PATCH", "/v1/groups/\(name)", raw: raw), .invalidRequest, field: field)
        }
        expectError(
            try await member.send("PATCH", "/v1/groups/\(name)", json: ConversationInfoUpdate(slowMode: ConfigDuration(seconds: 10))),
            .forbidden, reason: "not_group_admin")
        let set = try await owner.send("PATCH", "/v1/groups/\(name)", raw: #"{"slow_mode":"1d"}"#)
        #expect(try set.decode(ConversationInfo.self).slowMode == ConfigDuration(seconds: 86_400))
        let room = Names.unique("room")
        expectError(
            try await owner.send("POST", "/v1/rooms", json: CreateConversationRequest(name: room, slowMode: ConfigDuration(seconds: 5))),
            .invalidRequest, field: "slow_mode")
    }

    /// Issue 11, item 6: a blocked user's direct sends get 403 and they are told no more.
    @Test(arguments: TestStore.allCases) func aBlockedUsersDirectSendsAreRefusedAndTheyAreNotToldMore(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("pest")
        let (bob, bobUser) = try await server.client.newUser("blocker")
        let earlier = try await alice.message("user:\(bobUser.username)", "hi bob")
        let bobCursor = try await bob.cursor()
        let aliceCursor = try await alice.cursor()
        let blocked = try await bob.send("PUT", "/v1/blocks/\(aliceUser.username)")
        expectStatus(blocked, 201)
        #expect(try blocked.decode(User.self).id == aliceUser.id)
        expectStatus(try await bob.send("PUT", "/v1/blocks/\(aliceUser.username)"), 200)
        #expect(try await bob.get("/v1/blocks").decode(UserList.self).users.map(\.id) == [aliceUser.id])

        let refused = try await post(alice, "user:\(bobUser.username)", "answer me")
        expectError(refused, .forbidden)
        #expect(refused.error?.reason == nil && refused.error?.message == "you cannot send messages to this user")
        expectError(
            try await alice.send(
                "PATCH", "/v1/conversations/user:\(bobUser.username)/messages/\(earlier.id)", json: EditMessageRequest(text: "rude")),
            .forbidden)
        // Nothing reached bob, and alice's feed says nothing of the block.
        #expect(try await bob.events(after: bobCursor).events.isEmpty)
        #expect(try await alice.events(after: aliceCursor).events.isEmpty)
        #expect(try await bob.history("user:\(aliceUser.username)").messages.map(\.text) == ["hi bob"])
        // The blocker still writes; groups are not affected.
        try await bob.message("user:\(aliceUser.username)", "please stop")
        let group = Names.unique("both")
        try await bob.create(.group, group, join: .open)
        try await alice.join(.group, group)
        try await alice.message("group:\(group)", "in the group")

        expectStatus(try await bob.send("DELETE", "/v1/blocks/\(aliceUser.username)"), 204)
        expectError(try await bob.send("DELETE", "/v1/blocks/\(aliceUser.username)"), .notFound)
        try await alice.message("user:\(bobUser.username)", "sorry")
        expectError(try await bob.send("PUT", "/v1/blocks/\(bobUser.username)"), .invalidRequest, field: "name")
        expectError(try await bob.send("PUT", "/v1/blocks/\(Names.unique("nobody"))"), .notFound)
    }

    /// Issue 25, §4: blocked means no events from them at all. A blocked user who adds
    /// their victim as a contact (again and again), changes their profile or invites the
    /// victim to a group reaches nothing in the victim's feed; the acts themselves work.
    @Test(arguments: TestStore.allCases) func aBlockedUsersContactAddsProfileChangesAndInvitationsReachNothing(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (pest, pestUser) = try await server.client.newUser("pest")
        let (victim, victimUser) = try await server.client.newUser("victim")
        // The victim had added the pest as a contact before blocking them.
        expectStatus(try await victim.send("PUT", "/v1/contacts/\(pestUser.username)"), 201)
        expectStatus(try await victim.send("PUT", "/v1/blocks/\(pestUser.username)"), 201)
        let cursor = try await victim.cursor()

        for _ in 0..<3 {
            expectStatus(try await pest.send("PUT", "/v1/contacts/\(victimUser.username)"), 201)
            expectStatus(try await pest.send("DELETE", "/v1/contacts/\(victimUser.username)"), 204)
        }
        expectStatus(try await pest.send("PATCH", "/v1/me", json: ProfileUpdate(signature: "look at me")), 200)
        let group = Names.unique("lure")
        try await pest.create(.group, group)
        try await pest.invite(victimUser.username, to: group)
        #expect(try await victim.events(after: cursor).events.isEmpty)
        // The invitation stands: the victim may still take it up, and is told nothing.
        #expect(try await victim.join(.group, group).name == group)

        // Unblocked, the pest's acts reach the victim again.
        expectStatus(try await victim.send("DELETE", "/v1/blocks/\(pestUser.username)"), 204)
        let later = try await victim.cursor()
        expectStatus(try await pest.send("PUT", "/v1/contacts/\(victimUser.username)"), 201)
        let events = try await victim.events(after: later).events
        #expect(events.map(\.type) == [.contactAdded] && events.first?.by == pestUser.username)
    }
}
