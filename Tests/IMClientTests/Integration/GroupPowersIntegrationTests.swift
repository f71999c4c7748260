import IMClient
import IMProtocol
import Testing
import TestSupport

/// The client core's calls for group powers end to end: settings, join requests,
/// invitations, moderation, bans and blocks.
@Suite("IMClient group powers against a server")
struct GroupPowersIntegrationTests {
    @Test func requestsInvitationsAndSettingsRoundTrip() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")
            let carol = try await registered(server, "carol")
            try await alice.createGroup(name: "club", description: "ask first", join: .approval)

            let asked = try await bob.join(group: "club")
            let awaiting = await #expect(throws: IMClientError.self) { try await bob.joinGroup("club") }
            let mine = try await bob.myJoinRequests()
            let pending = try await alice.groupJoinRequests("club")
            let member = try await alice.approveJoinRequest("club", user: "bob")
            try await alice.inviteToGroup("club", user: "carol")
            let invited = try await carol.myInvites()
            let listed = try await alice.groupInvites("club")
            try await carol.revokeInvite("club", user: "carol")
            let afterDeclining = try await alice.groupInvites("club")
            let settings = try await alice.updateGroupSettings(
                "club", GroupSettings(newMembers: .restricted, slowMode: ConfigDuration("10s"), infoEditableBy: .members))

            guard case .requested(let request) = asked else {
                Issue.record("an approval group records a request, not \(asked)")
                return
            }
            #expect(request.group == "club" && request.user == "bob")
            #expect(awaiting?.code == .awaitingApproval)
            #expect(mine == [request] && pending == [request])
            #expect(member.user.username == "bob" && member.role == .member)
            #expect(invited.map(\.group) == ["club"] && listed.map(\.user) == ["carol"])
            #expect(afterDeclining.isEmpty)
            #expect(settings.newMembers == .restricted && settings.slowMode == ConfigDuration(seconds: 10))
            #expect(settings.infoEditableBy == .members && settings.join == .approval)
        }
    }

    @Test func moderationBansAndBlocksRoundTrip() async throws {
        try await withServer { server in
            let alice = try await registered(server, "alice")
            let bob = try await registered(server, "bob")
            try await alice.createGroup(name: "ops", join: .open)
            try await bob.joinGroup("ops")

            let muted = try await alice.moderate(group: "ops", .mute, user: "bob", duration: ConfigDuration("5m"), reason: "noise")
            let silenced = await #expect(throws: IMClientError.self) { try await bob.send("hello?", to: .group("ops")) }
            let byMember = await #expect(throws: IMClientError.self) { try await bob.moderate(group: "ops", .kick, user: "alice") }
            try await alice.moderate(group: "ops", .ban, user: "bob", reason: "enough")
            let bans = try await alice.groupBans("ops")
            try await bob.block("alice")
            let blocked = await #expect(throws: IMClientError.self) { try await alice.send("sorry", to: .user("bob")) }
            let blockList = try await bob.blockedUsers()
            try await bob.unblock("alice")
            try await alice.send("sorry", to: .user("bob"))

            #expect(muted.changed && muted.until != nil && muted.role == .member)
            #expect(silenced?.api?.reason == "muted" && silenced?.api?.until == muted.until)
            #expect(byMember?.api?.reason == "not_group_admin")
            #expect(bans.map(\.user.username) == ["bob"] && bans.first?.reason == "enough" && bans.first?.by == "alice")
            #expect(blocked?.code == .api(.forbidden))
            #expect(blockList.map(\.username) == ["alice"])
        }
    }
}
