import IMChat
import IMClient
import IMProtocol
import Testing

/// Moderation as the screens show it: why this user cannot post (muted, a newcomer's
/// wait, slow mode, removed), and a group's info page for its owner and admins.
@Suite struct ModerationStateTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    static func openOps() -> ChatModel {
        var model = Fixture.loggedIn(sessions: [
            Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(1, "hello"), unread: 0, read: 1),
        ])
        model.press(.enter)
        _ = model.handle(.result(.history(key, Fixture.page(1...1, total: 1), before: nil)))
        return model
    }

    /// The last row but one: the input line.
    static func inputLine(_ model: ChatModel) -> String {
        let lines = model.screenText.split(separator: "\n", omittingEmptySubsequences: false)
        return String(lines[lines.count - 2])
    }

    @Test func aMutedSendFailsAndTheInputLineSaysUntilWhen() {
        var model = Self.openOps()
        model.type("can I speak?")
        _ = model.press(.enter)
        let until = Fixture.time(90)
        _ = model.handle(.result(.sendFailed(
            Self.key, clientID: "test-1", "you are muted in this conversation until 2026-11-29T15:30:00.000Z",
            block: .muted(until: until))))
        #expect(model.dialogue?.posting == .muted(until: until))
        #expect(Self.inputLine(model) == "> You are muted here until 2026-11-29 15:30.")
        #expect(model.screenText.contains("not sent: you are muted"))
        // Typing moves the reason to the status row; an unmute lifts it.
        model.type("x")
        #expect(model.screenText.contains(" You are muted here until 2026-11-29 15:30."))
        _ = model.handle(Fixture.event(1, .memberUnmuted, user: Fixture.alice, by: "bob"))
        #expect(model.dialogue?.posting == nil)
        #expect(model.screenText.contains("You may post here again."))
    }

    @Test func slowModeShowsWhenTheNextPostCanGo() {
        var model = Self.openOps()
        model.type("again")
        _ = model.press(.enter)
        let block = PostingBlock.slowMode(seconds: 25, at: Fixture.time(2))
        _ = model.handle(.result(.sendFailed(Self.key, clientID: "test-1", "this group is in slow mode: you may post again in 25 s", block: block)))
        #expect(Self.inputLine(model) == "> Slow mode: your next post can go at 14:02:25 (wait 25 s).")
        // Retried later, the send goes through and the line is free again.
        model.press(.tab)
        #expect(model.press(.enter) == [.send(Self.key, text: "again", replyTo: nil, clientID: "test-1")])
        _ = model.handle(.result(.sent(Self.key, clientID: "test-1", Fixture.message(2, "again", from: "alice", clientID: "test-1"))))
        #expect(model.dialogue?.posting == nil)
        model.press(.escape)  // back to typing
        #expect(Self.inputLine(model) == ">")
    }

    @Test func aRestrictedNewcomerSeesWhyFromTheMembersList() {
        var model = Self.openOps()
        _ = model.handle(.result(.members(.group, "ops", [Fixture.member(Fixture.bob, .owner), Fixture.member(Fixture.alice, restricted: true)])))
        #expect(model.dialogue?.posting == .restricted)
        #expect(Self.inputLine(model).contains("Newcomers here post once an admin lets them"))
        // The unmute that lets her post arrives live.
        _ = model.handle(Fixture.event(1, .memberUnmuted, user: Fixture.alice, by: "bob"))
        #expect(model.dialogue?.posting == nil)
    }

    @Test func aMuteArrivesLiveAndAMembersListWithoutItLiftsIt() {
        var model = Self.openOps()
        _ = model.handle(Fixture.event(1, .memberMuted, user: Fixture.alice, by: "bob", until: nil))
        #expect(Self.inputLine(model) == "> You are muted here until a moderator unmutes you.")
        _ = model.handle(.result(.members(.group, "ops", [Fixture.member(Fixture.alice)])))
        #expect(model.dialogue?.posting == nil)
    }

    @Test func aKickFromTheOpenGroupShowsWhoAndWhyAndNothingMoreIsSent() {
        var model = Self.openOps()
        let notice = Fixture.message(2, "bob removed alice from the group: off topic", from: "bob", type: .system)
        _ = model.handle(Fixture.event(1, .memberKicked, message: notice, user: Fixture.alice, by: "bob", reason: "off topic"))
        #expect(model.dialogue?.posting == .removed(by: "bob", reason: "off topic"))
        #expect(Self.inputLine(model) == "> You were removed from this group by bob: off topic. Esc goes back.")
        #expect(model.screenText.contains("── bob removed alice from the group: off topic"))
        #expect(model.contacts.groups.isEmpty)
        model.type("hello?")
        #expect(model.press(.enter) == [])
        #expect(model.screenText.contains("You are no longer in this group"))
        // Invited back and joined (from another client): posting is open again.
        _ = model.handle(Fixture.event(2, .memberJoined, user: Fixture.alice, via: .invite))
        #expect(model.dialogue?.posting == nil)
    }

    @Test func aKickFromAGroupNotOnScreenShowsInTheStatusLine() {
        var model = Fixture.loggedIn()
        model.press(.character("2"))
        _ = model.handle(Fixture.event(1, .memberBanned, user: Fixture.alice, by: "bob", reason: "spam"))
        #expect(model.screenText.split(separator: "\n").last == " bob removed you from #ops: spam")
        #expect(model.contacts.groups.isEmpty)
    }

    /// ops' info page with alice as `role`, bob an admin and carol a member.
    static func infoPage(as role: MemberRole) -> ChatModel {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .down, .enter)
        let members = [Fixture.member(Fixture.alice, role), Fixture.member(Fixture.bob, .admin), Fixture.member(Fixture.carol)]
        _ = model.handle(.result(.info(Fixture.info("ops", members: 3), members)))
        return model
    }

    @Test func theActionsMenuOffersWhatTheRoleAllows() {
        let carol = Fixture.member(Fixture.carol)
        let bob = Fixture.member(Fixture.bob, .admin)
        #expect(MemberActions.allowed(me: .owner, target: bob, myName: "alice") == [.mute, .kick, .ban, .demote])
        #expect(MemberActions.allowed(me: .owner, target: carol, myName: "alice") == [.mute, .kick, .ban, .promote])
        #expect(MemberActions.allowed(me: .admin, target: carol, myName: "alice") == [.mute, .kick, .ban])
        #expect(MemberActions.allowed(me: .admin, target: bob, myName: "alice") == [])
        #expect(MemberActions.allowed(me: .member, target: carol, myName: "alice") == [])
        #expect(MemberActions.allowed(me: .owner, target: Fixture.member(Fixture.alice, .owner), myName: "alice") == [])
        let muted = Fixture.member(Fixture.carol, muted: true)
        #expect(MemberActions.allowed(me: .admin, target: muted, myName: "alice").first == .unmute)
        #expect(MemberActions.allowed(me: .admin, target: Fixture.member(Fixture.carol, restricted: true), myName: "alice").first == .unmute)

        var admin = Self.infoPage(as: .admin)
        admin.press(.down)
        admin.press(.down)  // bob, an admin like alice
        #expect(admin.press(.enter) == [])
        #expect(admin.contacts.info?.actionMenu == nil)
        #expect(admin.screenText.contains("your role in this group lets you do nothing to bob"))
        admin.press(.down)  // carol
        admin.press(.enter)
        #expect(admin.contacts.info?.actionMenu == 0)
        #expect(admin.screenText.contains("Remove from the group…"))
        #expect(!admin.screenText.contains("Make admin"))
    }

    @Test func anOwnerMutesWithADurationAndAReasonAndPromotesAtOnce() {
        var model = Self.infoPage(as: .owner)
        model.press(.down, .down)
        model.press(.down)  // carol
        model.press(.enter, .character("m"))
        guard case .moderate(let form)? = model.contacts.info?.form else {
            Issue.record("no moderation form")
            return
        }
        #expect(form.action == .mute && form.user == "carol")
        model.type("ten")
        model.press(.enter)
        #expect(model.screenText.contains("'ten' is not a duration"))
        model.press(.control("u"))
        model.type("10m")
        model.press(.tab)
        model.type("flooding")
        let request = ModerationRequest(action: .mute, user: "carol", duration: ConfigDuration(seconds: 600), reason: "flooding")
        #expect(model.press(.enter) == [.moderate(group: "ops", request)])
        let effects = model.handle(.result(.moderated(ModerationResult(group: "ops", action: .mute, user: "carol", changed: true))))
        #expect(effects == [.loadInfo(.group, "ops")])
        #expect(model.contacts.info?.form == nil)
        #expect(model.screenText.contains("muted carol"))
        model.press(.enter)
        #expect(model.press(.character("p")) == [.moderate(group: "ops", ModerationRequest(action: .promote, user: "carol"))])
    }

    @Test func membersEventsReloadAnOpenInfoPage() {
        var model = Self.infoPage(as: .owner)
        let effects = model.handle(Fixture.event(1, .memberMuted, user: Fixture.carol, by: "bob"))
        #expect(effects == [.loadInfo(.group, "ops")])
    }

    @Test func powersWaitForTheMembersList() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .down, .enter)
        #expect(model.press(.character("e")) == [])
        #expect(model.contacts.info?.form == nil)
        #expect(model.screenText.contains("loading the members first…"))
    }

    @Test func adminsInviteFromTheInfoPageAndMembersAreTold() {
        var member = Self.infoPage(as: .member)
        #expect(member.press(.character("i")) == [])
        #expect(member.contacts.info?.form == nil)
        #expect(member.screenText.contains("only the group's owner and admins may invite"))
        #expect(member.press(.character("e")) == [])
        #expect(member.screenText.contains("only the group's owner and admins may change its info"))
        var admin = Self.infoPage(as: .admin)
        admin.press(.character("i"))
        admin.type("Dave")
        #expect(admin.press(.enter) == [.invite(group: "ops", user: "dave")])
        _ = admin.handle(.result(.invited(GroupInvite(group: "ops", user: "dave", invitedBy: "alice", createdAt: Fixture.start))))
        #expect(admin.contacts.info?.form == nil)
        #expect(admin.screenText.contains("invited dave to #ops"))
    }

    @Test func refusalsMapToBlocksByReason() {
        let at = Fixture.start
        #expect(PostingBlock(refusal: APIError(.forbidden, "m", reason: "muted", until: at), at: at) == .muted(until: at))
        #expect(PostingBlock(refusal: APIError(.forbidden, "r", reason: "restricted"), at: at) == .restricted)
        #expect(PostingBlock(refusal: APIError(.forbidden, "b", reason: "banned"), at: at) == .banned(until: nil))
        #expect(PostingBlock(refusal: APIError(.rateLimited, "s", retryAfter: 7, reason: "slow_mode"), at: at) == .slowMode(seconds: 7, at: at))
        #expect(PostingBlock(refusal: APIError(.rateLimited, "too fast", retryAfter: 1), at: at) == nil)
        #expect(PostingBlock(refusal: APIError(.forbidden, "you cannot send messages to this user"), at: at) == nil)
        #expect(PostingBlock(refusal: nil, at: at) == nil)
    }
}
