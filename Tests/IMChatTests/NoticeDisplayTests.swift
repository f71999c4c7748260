@testable import IMChat
import IMClient
import IMProtocol
import Testing

/// Notices in the terminal client: a bot's reply only this user sees shows in the
/// Dialogue among the messages by time, dimmed and marked "only you can see this", and
/// counts as nothing unread; out of sight, the status row says where it is.
@Suite struct NoticeDisplayTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    static func notice(_ id: Int64, _ text: String, second: Int, replyTo: MessageID? = nil) -> Notice {
        Notice(
            id: NoticeID(rawValue: id), conversationID: Fixture.opsID, sender: "helper", senderID: UserID(rawValue: 9),
            recipientID: Fixture.alice.id, text: text, clientID: "n-\(id)", replyTo: replyTo,
            createdAt: Timestamp(milliseconds: Fixture.start.milliseconds + Int64(second) * 1000))
    }

    static func event(_ position: Int64, _ notice: Notice) -> ChatInput {
        .live(.event(Event(
            position: position, type: .notice, at: notice.createdAt,
            conversation: ConversationRef(id: Fixture.opsID, kind: .group, address: .group("ops")), notice: notice)))
    }

    static let sessions = [
        Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(3, "third"), unread: 0, read: 3),
    ]

    /// ops open with bob's messages 1, 2 and 3 (at minutes 1, 2 and 3).
    static func open(page: MessagePage? = nil) -> ChatModel {
        var model = Fixture.loggedIn(sessions: sessions)
        model.press(.enter)
        let messages = [Fixture.message(1, "first"), Fixture.message(2, "second"), Fixture.message(3, "third")]
        _ = model.handle(.result(.history(
            key, page ?? MessagePage(messages: messages.reversed(), nextBefore: nil), before: nil)))
        return model
    }

    private func row(containing text: String, in model: ChatModel) -> Int? {
        ChatView.render(model).text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains(text) }
    }

    @Test func aNoticeShowsAmongTheMessagesByTimeDimmedAndMarkedAndCountsAsNothingUnread() throws {
        var model = Self.open()
        let before = model.sessions.row(Fixture.opsID)
        // Between the second message (minute 2) and the third (minute 3), answering the second.
        let effects = model.handle(Self.event(20, Self.notice(1, "your report was filed", second: 150,
                                                              replyTo: Fixture.message(2, "").id)))
        #expect(effects == [])
        let second = try #require(row(containing: "second", in: model))
        let quote = try #require(row(containing: "↪ Bob: second", in: model))
        let text = try #require(row(containing: "your report was filed", in: model))
        let mark = try #require(row(containing: "· only you can see this", in: model))
        let third = try #require(row(containing: "third", in: model))
        #expect(second < quote && quote < text && text < mark && mark < third)
        #expect(model.screenText.contains("14:02 helper     ↪ Bob: second"))
        let grid = ChatView.render(model)
        for row in [quote, text, mark] {
            #expect(grid[20, row].style.dim, "row \(row) is not dimmed")
        }
        #expect(!grid[20, third].style.dim)
        // No unread count, no last message, no "new" divider.
        #expect(model.sessions.row(Fixture.opsID) == before)
        #expect(model.dialogue?.unseenBelow(me: "alice") == 0)
        // A repeat of the same notice (a feed re-read) shows once.
        _ = model.handle(Self.event(20, Self.notice(1, "your report was filed", second: 150)))
        #expect(model.screenText.components(separatedBy: "your report was filed").count == 2)
    }

    @Test func aNoticeOutOfSightIsNamedInTheStatusRowAndWaitsInItsDialogue() throws {
        var model = Fixture.loggedIn(sessions: Self.sessions)
        _ = model.handle(Self.event(21, Self.notice(2, "welcome to ops", second: 240)))
        #expect(model.screenText.contains("helper sent you a notice in group:ops (only you can see it)"))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 0)
        #expect(model.sessions.totalUnread == 0)
        model = {
            var opened = model
            opened.press(.enter)
            _ = opened.handle(.result(.history(
                Self.key, MessagePage(messages: [Fixture.message(3, "third"), Fixture.message(2, "second")], nextBefore: nil),
                before: nil)))
            return opened
        }()
        let third = try #require(row(containing: "third", in: model))
        let notice = try #require(row(containing: "welcome to ops", in: model))
        #expect(third < notice)
        #expect(model.screenText.contains("· only you can see this"))
        // Nothing of a login is kept after it: the next one starts without its notices.
        model.resetToLogin(note: nil)
        #expect(model.notices.isEmpty)
    }

    @Test func aNoticeFromBeforeTheLoadedWindowWaitsForPaging() throws {
        // Messages 51...100 loaded (minutes 51...100), older ones not yet: a notice at
        // minute 10 belongs above them.
        var model = Self.open(page: Fixture.page(51...100, total: 100))
        _ = model.handle(Self.event(22, Self.notice(3, "an old notice", second: 600)))
        #expect(!ChatView.render(model).text.contains("an old notice"))
        var lines = DialogueLayout.lines(
            try #require(model.dialogue), notices: model.notices[Fixture.opsID] ?? [], me: "alice", width: 80,
            text: TextLayout(widths: .standard), time: TimeFormat(utcOffset: 0))
        #expect(!lines.contains { $0.spans.map(\.text).joined().contains("an old notice") })
        _ = model.handle(.result(.history(Self.key, Fixture.page(1...50, total: 100), before: 51)))
        lines = DialogueLayout.lines(
            try #require(model.dialogue), notices: model.notices[Fixture.opsID] ?? [], me: "alice", width: 80,
            text: TextLayout(widths: .standard), time: TimeFormat(utcOffset: 0))
        let texts = lines.map { $0.spans.map(\.text).joined() }
        let notice = try #require(texts.firstIndex { $0.contains("an old notice") })
        let tenth = try #require(texts.firstIndex { $0.contains("message 10") })
        let eleventh = try #require(texts.firstIndex { $0.contains("message 11") })
        #expect(tenth < notice && notice < eleventh)
    }
}
