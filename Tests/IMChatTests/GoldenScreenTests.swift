import IMChat
import IMClient
import IMProtocol
import Testing

/// Every screen in fixed states, cell for cell, against the stored snapshots in
/// `Snapshots/` (see `Snapshot` for how to update them).
@Suite struct GoldenScreenTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    static var sessions: [Conversation] {
        [
            Fixture.conversation(Fixture.bobID, .user("bob"), name: "Bob", last: Fixture.message(7, "see you at 5? 👍🏽", in: Fixture.bobID), unread: 2, read: 5),
            Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(30, "deploy finished", from: "alice"), unread: 0, read: 30),
            Fixture.conversation(ConversationID(rawValue: 12), .room("lobby"), name: "大厅 Lobby", last: Fixture.message(3, "carol entered the room", from: "carol", in: ConversationID(rawValue: 12), type: .system), unread: 0, read: 3),
        ]
    }

    @Test func loginWithTheLastUser() throws {
        var model = Fixture.model()
        _ = model.handle(.result(.lastUser("alice", Fixture.alice)))
        model.type("password1")
        try Snapshot.check(ChatView.render(model), named: "login")
    }

    @Test func loginWarningAndFailure() throws {
        var model = Fixture.model()
        model.press(.enter)
        try Snapshot.check(ChatView.render(model), named: "login-warning")
        model.type("alice")
        model.press(.tab)
        model.type("password1")
        model.press(.enter)
        try Snapshot.check(ChatView.render(model), named: "login-waiting")
        _ = model.handle(.result(.loginFailed("wrong password for alice (or no account with that name)")))
        try Snapshot.check(ChatView.render(model), named: "login-failed")
    }

    @Test func register() throws {
        var model = Fixture.model()
        model.press(.control("r"))
        model.type("carol")
        model.press(.tab)
        model.type("password1")
        model.press(.tab)
        model.type("password2")
        model.press(.enter)
        try Snapshot.check(ChatView.render(model), named: "register-mismatch")
    }

    @Test func sessionsWithUnreadCJKAndEmoji() throws {
        let model = Fixture.loggedIn(sessions: Self.sessions)
        try Snapshot.check(ChatView.render(model), named: "sessions")
    }

    @Test func contactsAndThePlusMenu() throws {
        var model = Fixture.loggedIn(sessions: Self.sessions)
        model.press(.character("2"))
        try Snapshot.check(ChatView.render(model), named: "contacts")
        model.press(.character("+"))
        model.press(.down)
        try Snapshot.check(ChatView.render(model), named: "contacts-menu")
        model.press(.enter)
        model.type("new-team")
        try Snapshot.check(ChatView.render(model), named: "contacts-prompt")
    }

    @Test func groupInfoPage() throws {
        var model = Fixture.loggedIn(sessions: Self.sessions)
        model.press(.character("2"))
        model.press(.down)
        model.press(.enter)
        let members = [Member(user: Fixture.alice, role: .owner, joinedAt: Fixture.start),
                       Member(user: Fixture.bob, role: .admin, joinedAt: Fixture.start),
                       Member(user: Fixture.user("zhang", id: 3, nickname: "张伟"), role: .member, joinedAt: Fixture.start)]
        _ = model.handle(.result(.info(Fixture.info("ops", members: 3), members)))
        try Snapshot.check(ChatView.render(model), named: "group-info")
    }

    @Test func profile() throws {
        var model = Fixture.loggedIn()
        model.press(.character("3"))
        try Snapshot.check(ChatView.render(model), named: "profile")
    }

    /// A dialogue with CJK, emoji (ZWJ sequences too), combining marks, a reply, a
    /// system notice, a failed send and long lines that wrap.
    static func dialogue() -> ChatModel {
        var model = Fixture.loggedIn(sessions: Self.sessions)
        model.press(.down)
        model.press(.enter)  // ops
        let messages = [
            Fixture.message(20, "carol joined the group", from: "carol", type: .system),
            Fixture.message(21, "早上好！今天的部署计划是什么？我们需要在中午之前完成所有的检查和确认工作。", from: "zhang"),
            Fixture.message(22, "Morning 👋 the plan: 👩‍💻 build, 🧪 test, 🚀 ship. Family emoji for the ZWJ check: 👨‍👩‍👧‍👦 done.", from: "alice"),
            Fixture.message(23, "Cafe\u{301} au lait ☕ and 🇩🇪 flags render as two columns", from: "bob", replyTo: Fixture.message(22, "").id),
            Fixture.message(24, "a very long line without any spaces: abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", from: "bob"),
        ]
        _ = model.handle(.result(.history(key, MessagePage(messages: messages.reversed(), nextBefore: 20), before: nil)))
        model.type("is the VPN up?")
        _ = model.press(.enter)
        _ = model.handle(.result(.sendFailed(key, clientID: "test-1", "server not reachable at http://127.0.0.1:8080 (connection refused)")))
        model.type("retrying soon 好")
        return model
    }

    @Test func dialogueWithWideTextAFailedSendAndAReply() throws {
        try Snapshot.check(ChatView.render(Self.dialogue()), named: "dialogue")
    }

    @Test func dialogueScrolledUpWithNewMessagesBelow() throws {
        var model = Fixture.loggedIn(sessions: Self.sessions)
        model.press(.down)
        model.press(.enter)
        _ = model.handle(.result(.history(Self.key, Fixture.page(1...40, total: 40), before: nil)))
        model.press(.pageUp)
        _ = model.handle(Fixture.event(1, .message, message: Fixture.message(41, "new one", from: "bob")))
        _ = model.handle(Fixture.event(2, .message, message: Fixture.message(42, "and another", from: "bob")))
        try Snapshot.check(ChatView.render(model), named: "dialogue-new-below")
    }

    @Test func dialogueSelectingAMessageToReply() throws {
        var model = Self.dialogue()
        model.press(.tab)
        model.press(.up)
        model.press(.up)
        try Snapshot.check(ChatView.render(model), named: "dialogue-select")
        model.press(.character("r"))
        try Snapshot.check(ChatView.render(model), named: "dialogue-reply")
    }

    @Test func kickedOutAndConnectionLost() throws {
        var model = Fixture.loggedIn(sessions: Self.sessions)
        _ = model.handle(.live(.disconnected(IMClientError(.unreachable, "server not reachable at http://127.0.0.1:8080 (connection refused)"), retryIn: .seconds(4))))
        try Snapshot.check(ChatView.render(model), named: "connection-lost")
        _ = model.handle(.liveEnded(IMClientError(.kickedOut, "logged in elsewhere: a newer login of alice on chat@laptop")))
        try Snapshot.check(ChatView.render(model), named: "kicked-out")
    }

    @Test func helpOverlayOfTheDialogue() throws {
        var model = Self.dialogue()
        model.press(.function(1))
        try Snapshot.check(ChatView.render(model), named: "dialogue-help")
    }

    @Test func aNarrowTerminal() throws {
        var model = Self.dialogue()
        _ = model.handle(.resize(columns: 40, rows: 16))
        try Snapshot.check(ChatView.render(model), named: "dialogue-40x16")
    }
}
