import IMChat
import IMClient
import IMProtocol
import Testing

/// The screens issue 27 changed or added, cell for cell, against the stored snapshots
/// (`Snapshot`): invitations on Sessions, a question before quitting, the growing input
/// with a queued message and the activity line, the directory, a group's settings,
/// changing the password, an error shown whole.
@Suite struct DailyUseGoldenScreenTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    @Test func sessionsWithInvitationsAndAQuestionBeforeQuitting() throws {
        var model = Fixture.loggedIn(sessions: GoldenScreenTests.sessions)
        _ = model.handle(.result(.contacts(ContactLists(
            users: [Fixture.bob], groups: [Fixture.info("ops")],
            invites: [GroupInvite(group: "design", user: "alice", invitedBy: "carol", createdAt: Fixture.start)],
            requests: [GroupJoinRequest(group: "ops", user: "dave", createdAt: Fixture.start)], decides: ["ops"]))))
        try Snapshot.check(ChatView.render(model), named: "sessions-waiting")
        model.press(.character("q"))
        try Snapshot.check(ChatView.render(model), named: "sessions-quit")
    }

    @Test func dialogueWithAPastedBlockAQueuedMessageAndTheActivityLine() throws {
        var model = Fixture.loggedIn(sessions: GoldenScreenTests.sessions)
        model.press(.down, .enter)  // ops; Bob's conversation has unread messages
        let question = Fixture.message(20, "who takes the pager tonight?", from: "carol")
        let messages = [
            question, Fixture.message(21, "/me raises a hand", from: "bob"),
            Fixture.message(22, "thanks Bob", from: "carol", replyTo: question.id),
        ]
        _ = model.handle(.result(.history(Self.key, MessagePage(messages: messages.reversed(), nextBefore: 20), before: nil)))
        _ = model.handle(.result(.members(.group, "ops", [Fixture.member(Fixture.alice), Fixture.member(Fixture.bob), Fixture.member(Fixture.carol)])))
        _ = model.handle(.live(.disconnected(IMClientError(.unreachable, "server not reachable"), retryIn: .seconds(8))))
        model.press(.escape)
        model.type("on it")
        model.press(.enter)
        model.type("/deploy now")
        model.press(.enter)
        try Snapshot.check(ChatView.render(model), named: "dialogue-unknown-command")
        model.press(.escape, .control("u"))
        model.press(.paste("checklist:\n1. rotate logs\n2. renew the certificate\n3. page me if it breaks"))
        try Snapshot.check(ChatView.render(model), named: "dialogue-queued-multiline")
    }

    @Test func theDirectoryOfGroupsAnyoneMayJoin() throws {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .character("+"), .character("b"))
        model.type("c")
        let groups = [
            DirectoryGroup(name: "chess", title: "Chess Club", description: "Tuesdays at the café, all levels welcome", join: .open, members: 12),
            DirectoryGroup(name: "climbing", title: "Climbing", description: "", join: .approval, members: 1),
            DirectoryGroup(name: "cooking", title: "料理 Cooking", description: String(repeating: "Recipes and more recipes. ", count: 6), join: .open, members: 230),
        ]
        _ = model.handle(.result(.directory(DirectoryPage(groups: groups, nextAfter: "cooking"), search: "c", after: nil)))
        model.press(.down)
        try Snapshot.check(ChatView.render(model), named: "directory")
    }

    @Test func anOwnerChangingTheGroupsSettings() throws {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .down, .enter)
        var info = Fixture.info("ops", members: 2)
        info.join = .approval
        info.slowMode = ConfigDuration("30s")
        _ = model.handle(.result(.info(info, [Fixture.member(Fixture.alice, .owner), Fixture.member(Fixture.bob)])))
        model.press(.character("e"), .down, .down)
        try Snapshot.check(ChatView.render(model), named: "group-edit-settings")
    }

    @Test func profileChangingThePassword() throws {
        var model = Fixture.loggedIn()
        model.press(.character("3"), .character("p"))
        model.type("old-password")
        model.press(.enter)
        model.type("short")
        model.press(.enter, .enter)
        try Snapshot.check(ChatView.render(model), named: "profile-password")
    }

    @Test func anErrorWiderThanTheScreen() throws {
        var model = Fixture.loggedIn(sessions: GoldenScreenTests.sessions)
        _ = model.handle(.result(.failed(
            "cannot join the group secret-plans: no group 'secret-plans' (a group that only its members may see answers as one that does not exist; ask one of its admins to invite you)")))
        try Snapshot.check(ChatView.render(model), named: "error-whole")
    }
}
