import Foundation
import IMProtocol
import Lifecycle
import TestSupport
import Testing

/// Issue 11, items 1, 3 and 7: roles, `POST /v1/groups/<name>/moderation`, and every act
/// an event with a notice in the group naming who did it. (Who may do what against
/// whom, for every action, role and policy: `GroupPowersMatrixTests`.)
@Suite(.sharedServers) struct ModerationTests {

    /// An open group of a new owner with `count` members who joined it.
    private func group(_ count: Int, on server: TestServer) async throws
        -> (name: String, owner: (client: TestClient, user: User), members: [(client: TestClient, user: User)])
    {
        let owner = try await server.client.newUser("owner")
        let name = Names.unique("mod")
        try await owner.client.create(.group, name, join: .open)
        var members: [(client: TestClient, user: User)] = []
        for _ in 0..<count {
            let member = try await server.client.newUser("member")
            try await member.client.join(.group, name)
            members.append(member)
        }
        return (name, owner, members)
    }

    private func act(
        _ client: TestClient, _ group: String, _ action: ModerationAction, _ user: String,
        duration: String? = nil, reason: String? = nil
    ) async throws -> TestClient.Answer {
        try await client.send(
            "POST", "/v1/groups/\(group)/moderation",
            json: ModerationRequest(action: action, user: user, duration: duration.flatMap(ConfigDuration.init), reason: reason))
    }

    /// Issue 11's test list: mute expiry on an injected clock. A muted member's send is
    /// refused with `reason: muted` and `until`, until the clock passes it.
    @Test(arguments: TestStore.allCases) func aMuteEndsWhenTheServersClockPassesIt(_ store: TestStore) async throws {
        let time = ManualTime()
        try await withServer(store: store, time: time) { server in
            let (name, owner, members) = try await group(1, on: server)
            let (member, memberUser) = members[0]
            let cursor = try await member.cursor()
            let answer = try await act(owner.client, name, .mute, memberUser.username, duration: "10m", reason: "flooding")
            expectStatus(answer, 200)
            let result = try answer.decode(ModerationResult.self)
            let until = Timestamp(milliseconds: time.wallMilliseconds + 600_000)
            #expect(result.changed && result.action == .mute && result.until == until && result.role == .member)

            let refused = try await member.send(
                "POST", "/v1/conversations/group:\(name)/messages", json: SendMessageRequest(text: "let me talk"))
            expectError(refused, .forbidden, reason: "muted")
            #expect(refused.error?.until == until)
            let events = try await member.events(after: cursor).events
            #expect(events.map(\.type) == [.memberMuted])
            let muted = try #require(events.first)
            #expect(muted.user?.id == memberUser.id && muted.by == owner.user.username)
            #expect(muted.until == until && muted.reason == "flooding")
            #expect(muted.message?.text == "\(owner.user.username) muted \(memberUser.username) for 10m: flooding")
            let listed = try await owner.client.get("/v1/groups/\(name)/members").decode(MemberList.self).members
            let entry = try #require(listed.first { $0.user.id == memberUser.id })
            #expect(entry.muted == true && entry.mutedUntil == until)

            time.advance(by: .seconds(599))
            expectError(
                try await member.send("POST", "/v1/conversations/group:\(name)/messages", json: SendMessageRequest(text: "now?")),
                .forbidden, reason: "muted")
            time.advance(by: .seconds(1))
            try await member.message("group:\(name)", "free again")
            let after = try await owner.client.get("/v1/groups/\(name)/members").decode(MemberList.self).members
            #expect(after.first { $0.user.id == memberUser.id }?.muted == nil)
        }
    }

    @Test(arguments: TestStore.allCases) func aMuteWithoutDurationLastsUntilUnmuted(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (name, owner, members) = try await group(1, on: server)
        let (member, memberUser) = members[0]
        expectStatus(try await act(owner.client, name, .mute, memberUser.username), 200)
        let refused = try await member.send(
            "POST", "/v1/conversations/group:\(name)/messages", json: SendMessageRequest(text: "hello?"))
        expectError(refused, .forbidden, reason: "muted")
        #expect(refused.error?.until == nil)
        let cursor = try await member.cursor()
        let unmuted = try await act(owner.client, name, .unmute, memberUser.username)
        #expect(try unmuted.decode(ModerationResult.self).changed)
        #expect(try await member.events(after: cursor).events.map(\.type) == [.memberUnmuted])
        try await member.message("group:\(name)", "thanks")
        // Unmuting again has nothing to do: no event, no notice.
        let again = try await act(owner.client, name, .unmute, memberUser.username)
        #expect(try again.decode(ModerationResult.self).changed == false)
        #expect(try await member.events(after: cursor).events.map(\.type) == [.memberUnmuted, .message])
    }

    /// Issue 11's test list: a ban blocks joining, being invited and posting, until
    /// unbanned (or until it ends, for a timed one).
    @Test(arguments: TestStore.allCases) func aBanBlocksJoinInviteAndPostUntilLifted(_ store: TestStore) async throws {
        let time = ManualTime()
        try await withServer(store: store, time: time) { server in
            let (name, owner, members) = try await group(1, on: server)
            let (member, memberUser) = members[0]
            let cursor = try await member.cursor()
            expectStatus(try await act(owner.client, name, .ban, memberUser.username, duration: "1d", reason: "spam"), 200)
            let banned = try await member.events(after: cursor).events
            #expect(banned.map(\.type) == [.memberBanned])
            #expect(banned.first?.reason == "spam" && banned.first?.by == owner.user.username)
            let until = Timestamp(milliseconds: time.wallMilliseconds + 86_400_000)

            // Told they are banned, and until when, not to join first.
            let post = try await member.send("POST", "/v1/conversations/group:\(name)/messages", json: SendMessageRequest(text: "hi"))
            expectError(post, .forbidden, reason: "banned")
            #expect(post.error?.message.hasPrefix("you are banned from group '\(name)' until ") == true)
            #expect(post.error?.until == Timestamp(milliseconds: time.wallMilliseconds + 86_400_000))
            let join = try await member.send("POST", "/v1/groups/\(name)/join")
            expectError(join, .forbidden, reason: "banned")
            #expect(join.error?.until == until)
            expectError(
                try await owner.client.send("POST", "/v1/groups/\(name)/invites", json: GroupInviteRequest(user: memberUser.username)),
                .conflict)
            let bans = try await owner.client.get("/v1/groups/\(name)/bans").decode(GroupBanList.self).bans
            #expect(bans.map(\.user.id) == [memberUser.id] && bans.first?.until == until && bans.first?.reason == "spam")

            // The ban ends by itself once the server's clock passes it.
            time.advance(by: .seconds(86_400))
            try await member.join(.group, name)
            try await member.message("group:\(name)", "back")

            // Unbanned by hand, and a ban of someone outside the group.
            let (outsider, outsiderUser) = try await server.client.newUser("outsider")
            expectStatus(try await act(owner.client, name, .ban, outsiderUser.username), 200)
            let outsiderCursor = try await outsider.cursor()
            expectError(try await outsider.send("POST", "/v1/groups/\(name)/join"), .forbidden, reason: "banned")
            let unban = try await act(owner.client, name, .unban, outsiderUser.username)
            #expect(try unban.decode(ModerationResult.self).changed)
            // Told in their own feed, though not a member.
            #expect(try await outsider.events(after: outsiderCursor).events.map(\.type) == [.memberUnbanned])
            try await outsider.join(.group, name)
        }
    }

    @Test(arguments: TestStore.allCases) func aBanFromAnInviteOnlyGroupKeepsItInvisibleAndDropsTheInvitation(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (guest, guestUser) = try await server.client.newUser("guest")
        let name = Names.unique("closed")
        try await owner.create(.group, name)
        try await owner.invite(guestUser.username, to: name)
        expectStatus(try await act(owner, name, .ban, guestUser.username), 200)
        expectError(try await guest.send("POST", "/v1/groups/\(name)/join"), .notFound)
        expectError(try await guest.get("/v1/groups/\(name)"), .notFound)
        expectStatus(try await act(owner, name, .unban, guestUser.username), 200)
        // The invitation went with the ban: a new one is needed.
        expectError(try await guest.send("POST", "/v1/groups/\(name)/join"), .notFound)
        try await owner.invite(guestUser.username, to: name)
        try await guest.join(.group, name)
    }

    @Test(arguments: TestStore.allCases) func aKickedMemberMayRejoinWhenThePolicyLetsThem(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (name, owner, members) = try await group(1, on: server)
        let (member, memberUser) = members[0]
        let cursor = try await member.cursor()
        expectStatus(try await act(owner.client, name, .kick, memberUser.username, reason: "cool off"), 200)
        let kicked = try await member.events(after: cursor).events
        #expect(kicked.map(\.type) == [.memberKicked])
        #expect(kicked.first?.message?.text == "\(owner.user.username) removed \(memberUser.username) from the group: cool off")
        try await member.join(.group, name)

        // From an invite-only group, only with a new invitation.
        let closed = Names.unique("closed")
        try await owner.client.create(.group, closed)
        try await owner.client.invite(memberUser.username, to: closed)
        try await member.join(.group, closed)
        expectStatus(try await act(owner.client, closed, .kick, memberUser.username), 200)
        expectError(try await member.send("POST", "/v1/groups/\(closed)/join"), .notFound)
        try await owner.client.invite(memberUser.username, to: closed)
        try await member.join(.group, closed)
    }

    /// Issue 11, item 1: nobody acts above their role.
    @Test(arguments: TestStore.allCases) func adminsModerateMembersAndOnlyTheOwnerActsOnAdmins(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (name, owner, members) = try await group(3, on: server)
        let (admin, adminUser) = members[0]
        let (other, otherUser) = members[1]
        let (_, memberUser) = members[2]
        let cursor = try await other.cursor()
        let promoted = try await act(owner.client, name, .promote, adminUser.username)
        #expect(try promoted.decode(ModerationResult.self).role == .admin)
        let change = try #require(try await other.events(after: cursor).events.first)
        #expect(change.type == .roleChanged && change.role == .admin && change.user?.id == adminUser.id)
        #expect(change.message?.text == "\(owner.user.username) made \(adminUser.username) an admin")

        expectStatus(try await act(admin, name, .mute, memberUser.username, duration: "5m"), 200)
        expectError(try await act(admin, name, .promote, memberUser.username), .forbidden, reason: "not_group_owner")
        expectError(try await act(admin, name, .kick, owner.user.username), .forbidden, reason: "outranked")
        expectError(try await act(other, name, .mute, memberUser.username), .forbidden, reason: "not_group_admin")
        expectStatus(try await act(owner.client, name, .promote, otherUser.username), 200)
        expectError(try await act(admin, name, .ban, otherUser.username), .forbidden, reason: "outranked")
        expectError(try await act(admin, name, .kick, adminUser.username), .invalidRequest, field: "user")
        // Promoting an admin again changes nothing; demoting makes a member.
        #expect(try await act(owner.client, name, .promote, otherUser.username).decode(ModerationResult.self).changed == false)
        #expect(try await act(owner.client, name, .demote, otherUser.username).decode(ModerationResult.self).role == .member)
        expectStatus(try await act(admin, name, .kick, otherUser.username), 200)
        let roles = try await owner.client.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(roles.map(\.role) == [.owner, .admin, .member])
    }

    @Test(arguments: TestStore.allCases) func theOwnerHandsTheGroupOverAndBecomesAnAdmin(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (name, owner, members) = try await group(1, on: server)
        let (heir, heirUser) = members[0]
        let cursor = try await heir.cursor()
        let answer = try await act(owner.client, name, .transfer, heirUser.username)
        #expect(try answer.decode(ModerationResult.self).role == .owner)
        let changes = try await heir.events(after: cursor).events
        #expect(changes.map(\.type) == [.roleChanged, .roleChanged])
        #expect(changes.map(\.role) == [.owner, .admin])
        #expect(changes.first?.message?.text == "\(owner.user.username) made \(heirUser.username) the group's owner")
        let roles = try await heir.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(Dictionary(uniqueKeysWithValues: roles.map { ($0.user.id, $0.role) }) == [owner.user.id: .admin, heirUser.id: .owner])
        // The owner before is now below the new one.
        expectError(try await act(owner.client, name, .demote, heirUser.username), .forbidden, reason: "not_group_owner")
        expectStatus(try await act(heir, name, .demote, owner.user.username), 200)
    }

    /// Issue 11, item 1: a server administrator acts in any group (invite, moderate, take
    /// ownership), so an operator can always manage the groups a bot created.
    @Test(arguments: TestStore.allCases) func aServerAdministratorManagesAGroupABotCreated(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (bot, _) = try await server.createAccount(Names.unique("bot"), bot: true)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (mallory, malloryUser) = try await server.client.newUser("mallory")
        let (root, rootUser) = try await server.createAccount(Names.unique("root"), admin: true)
        let name = Names.unique("oncall")
        try await bot.create(.group, name)
        for user in [aliceUser, malloryUser] { try await root.invite(user.username, to: name) }
        try await alice.join(.group, name)
        try await mallory.join(.group, name)
        expectStatus(try await act(root, name, .mute, malloryUser.username, duration: "1h"), 200)
        expectStatus(try await act(root, name, .kick, malloryUser.username), 200)
        expectStatus(try await act(root, name, .promote, aliceUser.username), 200)
        let takeover = try await act(root, name, .transfer, rootUser.username)
        #expect(try takeover.decode(ModerationResult.self).role == .owner)
        let roles = try await root.get("/v1/groups/\(name)/members").decode(MemberList.self).members
        #expect(roles.first { $0.user.id == rootUser.id }?.role == .owner)
        #expect(roles.filter { $0.role == .owner }.count == 1)
        let notices = try await root.history("group:\(name)", limit: 50).messages.filter { $0.type == .system }.map(\.text)
        #expect(notices.contains("\(rootUser.username) took the group over"))
        #expect(notices.contains("\(rootUser.username) removed \(malloryUser.username) from the group"))
    }

    @Test(arguments: TestStore.allCases) func requestsThatMakeNoSenseAreRefusedClearly(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (name, owner, members) = try await group(1, on: server)
        let memberName = members[0].user.username
        let bad = try await owner.client.send(
            "POST", "/v1/groups/\(name)/moderation", raw: #"{"action":"smite","user":"\#(memberName)"}"#)
        expectError(bad, .invalidRequest, field: "action")
        expectError(try await act(owner.client, name, .kick, memberName, duration: "5m"), .invalidRequest, field: "duration")
        expectError(
            try await act(owner.client, name, .mute, memberName, reason: String(repeating: "x", count: 257)),
            .invalidRequest, field: "reason")
        expectError(try await act(owner.client, name, .mute, Names.unique("nobody")), .notFound)
        let (_, stranger) = try await server.client.newUser("stranger")
        expectError(try await act(owner.client, name, .mute, stranger.username), .notFound)
        expectError(try await act(owner.client, Names.unique("nogroup"), .mute, memberName), .notFound)
        expectError(try await server.client.send("POST", "/v1/groups/\(name)/moderation", json: ModerationRequest(action: .kick, user: memberName)), .unauthorized)
    }
}
