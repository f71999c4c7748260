import IMChat
import IMClient
import IMProtocol
import Testing

/// The Dialogue screen: paging, live messages, the unread divider, sending, replies.
@Suite struct DialogueStateTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    /// A model with ops open; `total` messages on the server, `unread` of them unread.
    static func open(total: Int64, unread: Int = 0) -> ChatModel {
        let last = Fixture.message(total, "message \(total)")
        var model = Fixture.loggedIn(sessions: [
            Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: last, unread: unread, read: total - Int64(unread)),
        ])
        _ = model.press(.enter)
        return model
    }

    @Test func theLatestPageOpensAtTheBottomAndSendsAReadMarker() {
        var model = Self.open(total: 200, unread: 2)
        let effects = model.handle(.result(.history(Self.key, Fixture.page(151...200, total: 200), before: nil)))
        #expect(effects == [.markRead(Self.key, seq: 200)])
        #expect(model.dialogue?.scroll == 0)
        #expect(model.sessions.row(Fixture.opsID)?.unread == 0)
        #expect(model.screenText.contains("message 200"))
        #expect(model.screenText.contains("── new ──"))
    }

    @Test func scrollingToTheTopLoadsOlderPagesWithAVisibleLoadingLineUntilTheStart() {
        var model = Self.open(total: 200)
        _ = model.handle(.result(.history(Self.key, Fixture.page(151...200, total: 200), before: nil)))
        var before: Int64? = 151
        var loads = 0
        while let next = before {
            var effects: [ChatEffect] = []
            for _ in 0..<20 where effects.isEmpty { effects = model.press(.pageUp) }
            #expect(effects == [.loadHistory(Self.key, before: next, limit: 50)])
            #expect(model.screenText.contains("loading older…"))
            // Further keys while the page is under way ask for nothing more.
            #expect(model.press(.pageUp) == [])
            let low = max(1, next - 50)
            _ = model.handle(.result(.history(Self.key, Fixture.page(low...(next - 1), total: 200), before: next)))
            before = low > 1 ? low : nil
            loads += 1
        }
        #expect(loads == 3)
        #expect(model.dialogue?.messages.count == 200)
        #expect(model.dialogue?.messages.map(\.seq) == Array(1...200))
        for _ in 0..<100 { model.press(.pageUp) }
        #expect(model.screenText.contains("beginning of the conversation"))
        #expect(model.screenText.contains("message 1\n") || model.screenText.contains("message 1 "))
    }

    @Test func olderLinesGoingInAboveKeepTheSameLinesOnScreen() {
        var model = Self.open(total: 100)
        _ = model.handle(.result(.history(Self.key, Fixture.page(51...100, total: 100), before: nil)))
        for _ in 0..<3 { model.press(.pageUp) }
        let shown = model.screenText
        _ = model.handle(.result(.history(Self.key, Fixture.page(1...50, total: 100), before: 51)))
        let body = { (text: String) in text.split(separator: "\n").dropFirst(2).prefix(15).joined(separator: "\n") }
        #expect(body(model.screenText) == body(shown))
    }

    @Test func newMessagesWhileScrolledUpShowAMarkerAndNoReadMarker() {
        var model = Self.open(total: 60)
        _ = model.handle(.result(.history(Self.key, Fixture.page(11...60, total: 60), before: nil)))
        model.press(.pageUp)
        let scroll = model.dialogue?.scroll ?? 0
        let effects = model.handle(Fixture.event(1, .message, message: Fixture.message(61, "fresh one")))
        #expect(!effects.contains { if case .markRead = $0 { true } else { false } })
        #expect(model.dialogue?.unseenBelow(me: "alice") == 1)
        #expect((model.dialogue?.scroll ?? 0) > scroll)  // the view did not move
        #expect(model.sessions.row(Fixture.opsID)?.unread == 1)
        #expect(model.screenText.contains("↓ 1 new below"))
        // Back at the bottom, the message is seen: marker sent, count cleared.
        model.press(.pageDown)
        let bottom = model.press(.pageDown)
        #expect(bottom.contains(.markRead(Self.key, seq: 61)) || model.dialogue?.readSent == 61)
        #expect(model.sessions.row(Fixture.opsID)?.unread == 0)
        #expect(!model.screenText.contains("new below"))
    }

    @Test func openingWithManyUnreadJumpsToTheFirstUnreadLoadingOlderPagesFirst() {
        var model = Self.open(total: 200, unread: 120)
        let first = model.handle(.result(.history(Self.key, Fixture.page(151...200, total: 200), before: nil)))
        #expect(first == [.loadHistory(Self.key, before: 151, limit: 200)])
        _ = model.handle(.result(.history(Self.key, Fixture.page(1...150, total: 200), before: 151)))
        let text = model.screenText
        #expect(text.contains("── new ──"))
        #expect(text.contains("message 81"))
        #expect(!text.contains("message 200"))
        // Read part-way: the marker is the newest message on screen, and the count is
        // what is still below it.
        let seen = model.dialogue?.readSent ?? 0
        #expect(seen > 81 && seen < 120)
        #expect(model.sessions.row(Fixture.opsID)?.unread == Int(200 - seen))
        // u in the message list goes to the first message not seen yet after scrolling
        // away: the one after the marker, which moves on to what is then on screen.
        model.press(.pageUp, .pageUp)
        model.press(.tab)
        model.press(.character("u"))
        let top = model.screenText.split(separator: "\n")[1]
        #expect(top.hasSuffix("message \(seen + 1)"))
        #expect((model.dialogue?.readSent ?? 0) > seen)
        #expect(model.sessions.row(Fixture.opsID)?.unread == Int(200 - (model.dialogue?.readSent ?? 0)))
        // Read to the end, nothing is left for u, and the banner and Sessions agree.
        model.press(.character("G"))
        #expect(model.dialogue?.scroll == 0 && model.sessions.row(Fixture.opsID)?.unread == 0)
        model.press(.character("u"))
        #expect(model.screenText.contains("No unread messages."))
    }

    @Test func aSentMessageShowsAtOnceAndAFailedOneStaysWithItsReasonUntilRetried() {
        var model = Self.open(total: 3)
        _ = model.handle(.result(.history(Self.key, Fixture.page(1...3, total: 3), before: nil)))
        model.type("all good?")
        let effects = model.press(.enter)
        #expect(effects == [.send(Self.key, text: "all good?", replyTo: nil, clientID: "test-1")])
        #expect(model.screenText.contains("…   Alice Lid… all good?"))
        _ = model.handle(.result(.sendFailed(Self.key, clientID: "test-1", "the server refused it for a reason")))
        #expect(model.screenText.contains("✗   Alice Lid… all good?"))
        #expect(model.screenText.contains("not sent: the server refused it for a reason"))
        model.press(.tab)
        #expect(model.dialogue?.selected == .pending("test-1"))
        let retry = model.press(.enter)
        #expect(retry == [.send(Self.key, text: "all good?", replyTo: nil, clientID: "test-1")])
        let stored = Fixture.message(4, "all good?", from: "alice", clientID: "test-1")
        _ = model.handle(.result(.sent(Self.key, clientID: "test-1", stored)))
        #expect(model.outbox.items.isEmpty)
        #expect(model.dialogue?.messages.last == stored)
        // The live copy of the same message changes nothing.
        _ = model.handle(Fixture.event(1, .message, message: stored))
        #expect(model.dialogue?.messages.count == 4)
    }

    @Test func repliesQuoteTheMessageAndEscCancels() {
        var model = Self.open(total: 3)
        _ = model.handle(.result(.history(Self.key, Fixture.page(1...3, total: 3), before: nil)))
        model.press(.tab)
        model.press(.up)
        model.press(.character("r"))
        #expect(model.dialogue?.replyTo?.seq == 2)
        #expect(model.screenText.contains("replying to Bob: message 2"))
        model.press(.escape)
        #expect(model.dialogue?.replyTo == nil)
        model.press(.tab)
        model.press(.up)
        model.press(.enter)
        model.type("agreed")
        let effects = model.press(.enter)
        #expect(effects == [.send(Self.key, text: "agreed", replyTo: Fixture.message(2, "").id, clientID: "test-1")])
        let stored = Fixture.message(4, "agreed", from: "alice", replyTo: Fixture.message(2, "").id, clientID: "test-1")
        _ = model.handle(.result(.sent(Self.key, clientID: "test-1", stored)))
        #expect(model.screenText.contains("↪ Bob: message 2"))
    }

    @Test func systemNoticesAppearAndTitleChangesFollowTheInfo() {
        var model = Self.open(total: 1)
        _ = model.handle(.result(.history(Self.key, Fixture.page(1...1, total: 1), before: nil)))
        var info = Fixture.info("ops")
        info.title = "Ops (renamed)"
        let notice = Fixture.message(2, "bob changed the group info", type: .system)
        _ = model.handle(Fixture.event(1, .conversationUpdated, message: notice, info: info, by: "bob"))
        #expect(model.screenText.contains("── bob changed the group info"))
        #expect(model.dialogue?.title == "Ops (renamed)")
        #expect(model.sessions.row(Fixture.opsID)?.displayName == "Ops (renamed)")
        #expect(model.sessions.row(Fixture.opsID)?.unread == 0)
    }

    @Test func controlCharactersInMessagesNeverReachTheTerminal() {
        var model = Self.open(total: 1)
        let hostile = Fixture.message(1, "hi\u{1B}]0;owned\u{07}\u{1B}[2J there\u{202E}")
        _ = model.handle(.result(.history(Self.key, MessagePage(messages: [hostile], nextBefore: nil), before: nil)))
        let grid = ChatView.render(model)
        #expect(!grid.text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        #expect(grid.text.contains("hi�]0;owned��[2J there"))
    }

    @Test func aRestartedLiveStreamReloadsTheOpenDialogue() {
        var model = Self.open(total: 3)
        _ = model.handle(.result(.history(Self.key, Fixture.page(1...3, total: 3), before: nil)))
        #expect(model.handle(.liveReady) == [.loadSessions, .loadContacts, .loadHistory(Self.key, before: nil, limit: 50)])
        // The reloaded page merges with what is loaded: nothing twice.
        _ = model.handle(.result(.history(Self.key, Fixture.page(2...4, total: 4), before: nil)))
        #expect(model.dialogue?.messages.map(\.seq) == [1, 2, 3, 4])
        // More missed than a page: the window starts again from the new page.
        _ = model.handle(.result(.history(Self.key, Fixture.page(60...109, total: 109), before: nil)))
        #expect(model.dialogue?.messages.map(\.seq) == Array(60...109))
        var effects: [ChatEffect] = []
        for _ in 0..<10 where effects.isEmpty { effects = model.press(.pageUp) }
        #expect(effects == [.loadHistory(Self.key, before: 60, limit: 50)])
    }

    @Test func escGoesBackToTheListItCameFrom() {
        var model = Self.open(total: 1)
        model.press(.escape)
        #expect(model.screen == .sessions)
        #expect(model.dialogue == nil)
    }
}
