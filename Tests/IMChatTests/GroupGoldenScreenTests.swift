import IMChat
import IMClient
import IMProtocol
import Testing

/// The screens of groups' rules in fixed states, cell for cell, against the stored
/// snapshots (`Snapshot`): invitations and requests, the join policy of a new group,
/// edits and deletions, why a post is refused, moderation and blocks.
@Suite struct GroupGoldenScreenTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    @Test func contactsWithInvitationsAndJoinRequests() throws {
        var model = Fixture.loggedIn()
        _ = model.handle(.result(.contacts(ContactLists(
            users: [Fixture.bob], groups: [Fixture.info("team", id: ConversationID(rawValue: 20), members: 4)],
            invites: [GroupInvite(group: "ops", user: "alice", invitedBy: "bob", createdAt: Fixture.start)],
            requests: [GroupJoinRequest(group: "team", user: "carol", createdAt: Fixture.start)],
            myRequests: [GroupJoinRequest(group: "design", user: "alice", createdAt: Fixture.start)], decides: ["team"]))))
        model.press(.character("2"))
        try Snapshot.check(ChatView.render(model), named: "contacts-invitations")
    }

    @Test func creatingAGroupChoosesWhoMayJoin() throws {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .character("+"), .character("g"))
        model.type("release-crew")
        model.press(.tab)
        try Snapshot.check(ChatView.render(model), named: "contacts-create-group")
    }

    /// ops open: bob's message edited, one deleted by an admin with the notice, alice's own.
    static func dialogue() -> ChatModel {
        var model = Fixture.loggedIn(sessions: [
            Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(4, "x"), unread: 0, read: 4),
        ])
        model.press(.enter)
        var edited = Fixture.message(1, "the deploy is at 15:00 (not 14:00)")
        edited.editedAt = Fixture.time(3)
        var deleted = Fixture.message(2, "")
        deleted.deletedAt = Fixture.time(5)
        let messages = [
            edited, deleted,
            Fixture.message(3, "alice deleted a message of bob", from: "alice", type: .system),
            Fixture.message(4, "thanks, see you there", from: "alice"),
        ]
        _ = model.handle(.result(.history(key, MessagePage(messages: messages.reversed(), nextBefore: nil), before: nil)))
        _ = model.handle(.result(.members(.group, "ops", [Fixture.member(Fixture.alice, .admin), Fixture.member(Fixture.bob)])))
        return model
    }

    @Test func dialogueWithAnEditADeletionAndEditingOwnMessage() throws {
        var model = Self.dialogue()
        try Snapshot.check(ChatView.render(model), named: "dialogue-edited-deleted")
        model.press(.tab, .character("e"))
        model.type(" at 15:00")
        try Snapshot.check(ChatView.render(model), named: "dialogue-editing")
    }

    @Test func dialogueAskingBeforeADeletion() throws {
        var model = Self.dialogue()
        model.press(.tab, .up, .up)
        model.press(.up)  // bob's edited message: an admin may delete it
        model.press(.character("d"))
        try Snapshot.check(ChatView.render(model), named: "dialogue-delete-confirm")
    }

    @Test func dialogueWhenPostsAreRefused() throws {
        var muted = Self.dialogue()
        _ = muted.handle(Fixture.event(1, .memberMuted, user: Fixture.alice, by: "bob", until: Fixture.time(75)))
        try Snapshot.check(ChatView.render(muted), named: "dialogue-muted")

        var slow = Self.dialogue()
        var info = Fixture.info("ops")
        info.slowMode = ConfigDuration(seconds: 30)
        _ = slow.handle(.result(.info(info, [Fixture.member(Fixture.alice), Fixture.member(Fixture.bob, .owner)])))
        slow.type("one more thing")
        _ = slow.press(.enter)
        _ = slow.handle(.result(.sendFailed(
            Self.key, clientID: "test-1", "this group is in slow mode: you may post again in 18 s",
            block: .slowMode(seconds: 18, at: Fixture.time(6)))))
        try Snapshot.check(ChatView.render(slow), named: "dialogue-slow-mode")

        var newcomer = Self.dialogue()
        _ = newcomer.handle(.result(.members(.group, "ops", [Fixture.member(Fixture.alice, restricted: true)])))
        try Snapshot.check(ChatView.render(newcomer), named: "dialogue-restricted")

        var removed = Self.dialogue()
        let notice = Fixture.message(5, "bob removed alice from the group: off topic", from: "bob", type: .system)
        _ = removed.handle(Fixture.event(2, .memberKicked, message: notice, user: Fixture.alice, by: "bob", reason: "off topic"))
        try Snapshot.check(ChatView.render(removed), named: "dialogue-removed")
    }

    /// ops' info page for its owner alice: bob an admin, carol muted, dave a waiting newcomer.
    static func infoPage() -> ChatModel {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .down, .enter)
        var info = Fixture.info("ops", members: 4)
        info.join = .approval
        info.newMembers = .restricted
        info.slowMode = ConfigDuration(seconds: 30)
        let members = [
            Fixture.member(Fixture.alice, .owner), Fixture.member(Fixture.bob, .admin),
            Fixture.member(Fixture.carol, muted: true, until: Fixture.time(45)),
            Fixture.member(Fixture.user("dave", id: 4, nickname: "Dave"), restricted: true),
        ]
        _ = model.handle(.result(.info(info, members)))
        return model
    }

    @Test func groupInfoForItsOwnerWithAMembersActionsAndAMuteForm() throws {
        var model = Self.infoPage()
        model.press(.down)
        model.press(.down)  // bob
        model.press(.enter)
        try Snapshot.check(ChatView.render(model), named: "group-info-actions")
        model.press(.character("m"))
        model.type("2h")
        model.press(.tab)
        model.type("arguing with the pager")
        try Snapshot.check(ChatView.render(model), named: "group-moderation-form")
    }

    @Test func theKeysOfTheMainScreens() throws {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .function(1))
        try Snapshot.check(ChatView.render(model), named: "main-help")
    }

    @Test func aBlockedContactsInfoPage() throws {
        var model = Fixture.loggedIn()
        _ = model.handle(.result(.contacts(ContactLists(users: [Fixture.bob], blocked: [Fixture.bob]))))
        model.press(.character("2"), .enter)
        try Snapshot.check(ChatView.render(model), named: "contact-blocked")
    }
}
