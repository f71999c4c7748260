import IMChat
import IMClient
import IMProtocol
import Testing

/// Issue 27, items 3 and 4: sending that never loses a message, and counts that agree.
@Suite struct SendingStateTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    /// ops open with `total` messages of bob's loaded, `unread` of them unread.
    static func open(total: Int64 = 3, unread: Int = 0) -> ChatModel {
        var model = Fixture.loggedIn(sessions: [
            Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(total, "message \(total)"),
                                 unread: unread, read: total - Int64(unread)),
        ])
        model.press(.enter)
        _ = model.handle(.result(.history(key, Fixture.page(max(1, total - 49)...total, total: total), before: nil)))
        return model
    }

    static func lost(_ model: inout ChatModel) {
        _ = model.handle(.live(.disconnected(IMClientError(.unreachable, "server not reachable"), retryIn: .seconds(4))))
    }

    @Test func typedWhileTheServerIsAwayAMessageWaitsQueuedAndGoesOnReconnectInOrder() {
        var model = Self.open()
        Self.lost(&model)
        model.press(.escape)  // keep reading
        model.type("first")
        #expect(model.press(.enter) == [])
        model.type("second")
        #expect(model.press(.enter) == [])
        #expect(model.outbox.items.map(\.clientID) == ["test-1", "test-2"])
        let text = model.screenText
        #expect(text.contains("◷   Alice Lid… first") && text.contains("queued: goes when the server is back"))
        // Back: the first goes, with its id; the second once the first is stored.
        let back = model.handle(.live(.reconnected))
        #expect(back == [.send(Self.key, text: "first", replyTo: nil, clientID: "test-1")])
        let next = model.handle(.result(.sent(Self.key, clientID: "test-1", Fixture.message(4, "first", from: "alice", clientID: "test-1"))))
        #expect(next.contains(.send(Self.key, text: "second", replyTo: nil, clientID: "test-2")))
        // Its own event in the feed, arriving first, settles it just the same: never twice.
        _ = model.handle(Fixture.event(9, .message, message: Fixture.message(5, "second", from: "alice", clientID: "test-2")))
        #expect(model.outbox.items.isEmpty)
        _ = model.handle(.result(.sent(Self.key, clientID: "test-2", Fixture.message(5, "second", from: "alice", clientID: "test-2"))))
        #expect(model.dialogue?.messages.filter { $0.text == "second" }.count == 1)
    }

    @Test func aSendThatCannotReachTheServerWaitsQueuedInsteadOfFailing() {
        var model = Self.open()
        model.type("hello?")
        #expect(model.press(.enter) == [.send(Self.key, text: "hello?", replyTo: nil, clientID: "test-1")])
        // The stream still says online: the send is tried again a little later.
        let effects = model.handle(.result(.sendFailed(Self.key, clientID: "test-1", "timed out", unreachable: true)))
        #expect(effects == [.wake(after: 5)])
        #expect(model.outbox.items.first?.state == .queued)
        #expect(!model.screenText.contains("not sent"))
        #expect(model.handle(.wake) == [.send(Self.key, text: "hello?", replyTo: nil, clientID: "test-1")])
    }

    @Test func aRefusedMessageCanBeSentAgainOrDiscarded() {
        var model = Self.open()
        model.type("spam")
        model.press(.enter)
        _ = model.handle(.result(.sendFailed(Self.key, clientID: "test-1", "slow mode: wait 30 s")))
        #expect(model.screenText.contains("not sent: slow mode: wait 30 s"))
        model.press(.tab)
        #expect(model.dialogue?.selected == .pending("test-1"))
        #expect(model.screenText.split(separator: "\n").last?.contains("Enter send again  d discard") == true)
        model.press(.character("d"))
        #expect(model.outbox.items.isEmpty)
        #expect(model.screenText.contains("Discarded: that message will not be sent."))
        #expect(!model.screenText.contains("spam"))
    }

    @Test func aMessageOverTheLimitIsSplitAtASensibleBoundaryAfterAsking() {
        var model = Self.open()
        let paragraph = String(repeating: "word ", count: 600)  // 3,000 characters
        let text = paragraph + "\n\n" + paragraph  // 6,002: over 4,096
        model.press(.paste(text))
        #expect(model.press(.enter) == [])
        #expect(model.confirmation == .split(text: text.trimmingTrailingSpaces(), parts: 2))
        #expect(model.screenText.contains("6,001 characters: a message holds 4,096. y sends it as 2 messages"))
        let effects = model.press(.character("y"))
        #expect(effects.count == 1)  // one at a time, in order
        let parts = model.outbox.items.map(\.text)
        #expect(parts.count == 2)
        #expect(parts[0] == paragraph)  // the paragraph break is where it splits
        #expect(parts.joined(separator: "\n\n") == text.trimmingTrailingSpaces())
        #expect(parts.allSatisfy { $0.count <= Limits.messageTextLength.upperBound })
    }

    @Test(arguments: [
        (String(repeating: "a", count: 5_000), 2),  // no break at all: cut between characters
        (String(repeating: "line of text\n", count: 700), 3),
        (String(repeating: "Sentence here. ", count: 600), 3),
        (String(repeating: "😀", count: 4_097), 2),  // 4 bytes each: characters, not bytes, limit
    ])
    func theSplitterNeverLosesOrCutsBeyondTheLimits(_ text: String, _ expected: Int) {
        let parts = MessageSplitter.split(text)
        #expect(parts.count == expected)
        for part in parts {
            #expect(part.count <= Limits.messageTextLength.upperBound)
            #expect(part.utf8.count <= Limits.byteLimit(for: Limits.messageTextLength))
        }
        // Nothing is lost: only the break (a space or a line end) between parts goes.
        let kept = parts.reduce(0) { $0 + $1.count }
        #expect(text.count - kept <= parts.count - 1)
        #expect(MessageSplitter.split("short") == ["short"])
    }

    @Test func readingPartWayMovesTheMarkerToTheNewestMessageOnScreen() {
        var model = Self.open(total: 100, unread: 40)
        // Opened at the first unread: the marker is the newest line on screen, not the end.
        let seen = model.dialogue?.readSent ?? 0
        #expect(seen > 60 && seen < 100)
        #expect(model.sessions.row(Fixture.opsID)?.unread == Int(100 - seen))
        #expect(tabBar(model).contains("1 Sessions (\(100 - seen))"))
        // Scrolled down a page: it counts down.
        let effects = model.press(.pageDown)
        guard case .markRead(_, let next)? = effects.last else {
            Issue.record("no marker after scrolling: \(effects)")
            return
        }
        #expect(next > seen)
        #expect(model.sessions.row(Fixture.opsID)?.unread == Int(100 - next))
    }

    @Test func anotherClientReadingMovesTheCountTheBannerAndU() {
        var model = Self.open(total: 100, unread: 40)
        model.press(.pageUp, .pageUp, .pageUp)
        #expect(model.screenText.contains("new below"))
        // alice reads everything on her phone: the banner, u and Sessions agree at once.
        _ = model.handle(Fixture.event(50, .read, seq: 100))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 0)
        #expect(model.dialogue?.unseenBelow(me: "alice") == 0)
        #expect(model.screenText.contains("↓ more below"))
        model.press(.tab)
        model.press(.character("u"))
        #expect(model.screenText.contains("No unread messages."))
    }
}

/// The title bar's text of the main screens.
func tabBar(_ model: ChatModel) -> String {
    var copy = model
    copy.screen = .sessions
    return String(copy.screenText.split(separator: "\n").first ?? "")
}
