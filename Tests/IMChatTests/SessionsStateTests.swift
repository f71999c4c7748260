import IMChat
import IMClient
import IMProtocol
import Testing

/// Unread counts and ordering on the Sessions screen.
@Suite struct SessionsStateTests {
    static let rows = [
        Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(3, "deploy done"), unread: 0, read: 3),
        Fixture.conversation(Fixture.bobID, .user("bob"), name: "Bob", last: Fixture.message(1, "hi", in: Fixture.bobID, minute: 0), unread: 1, read: 0),
    ]

    @Test func unreadComeFirstThenTheMostRecent() {
        let model = Fixture.loggedIn(sessions: Self.rows.reversed())
        #expect(model.sessions.rows.map(\.id) == [Fixture.bobID, Fixture.opsID])
    }

    @Test func onlyChatMessagesOfOthersCount() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        _ = model.handle(Fixture.event(1, .message, message: Fixture.message(4, "ping")))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 1)
        let notice = Fixture.message(5, "carol joined the group", from: "carol", type: .system)
        _ = model.handle(Fixture.event(2, .memberJoined, message: notice, user: Fixture.user("carol", id: 3)))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 1)
        #expect(model.sessions.row(Fixture.opsID)?.lastMessage?.text == "carol joined the group")
        _ = model.handle(.live(.event(Event(position: 3, type: .profileUpdated, at: Fixture.start, user: Fixture.bob))))
        #expect(model.sessions.totalUnread == 2)
    }

    @Test func aRepeatedEventIsNotCountedTwice() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        let message = Fixture.message(4, "ping")
        _ = model.handle(Fixture.event(1, .message, message: message))
        _ = model.handle(Fixture.event(1, .message, message: message))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 1)
    }

    @Test func ownMessagesFromAnotherClientClearTheCount() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        _ = model.handle(Fixture.event(1, .message, message: Fixture.message(4, "ping")))
        _ = model.handle(Fixture.event(2, .message, message: Fixture.message(5, "on it", from: "alice")))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 0)
    }

    @Test func aReadMarkerFromAnotherClientClearsOrRefetchesTheCount() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        for seq in Int64(4)...6 { _ = model.handle(Fixture.event(seq, .message, message: Fixture.message(seq, "m\(seq)"))) }
        #expect(model.sessions.row(Fixture.opsID)?.unread == 3)
        // Part of the way: only the server knows how many are left.
        let partial = model.handle(Fixture.event(7, .read, seq: 5))
        #expect(partial == [.loadConversation(.group("ops"))])
        let all = model.handle(Fixture.event(8, .read, seq: 6))
        #expect(all == [])
        #expect(model.sessions.row(Fixture.opsID)?.unread == 0)
        #expect(model.sessions.rows.first?.id == Fixture.bobID)
    }

    @Test func aRowFetchedBeforeTheLatestMessagesDoesNotTakeBackTheirCount() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        for seq in Int64(4)...6 { _ = model.handle(Fixture.event(seq, .message, message: Fixture.message(seq, "m\(seq)"))) }
        #expect(model.sessions.row(Fixture.opsID)?.unread == 3)
        // A fetch answered late, with the server's row as it was at the first of them.
        let stale = Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(4, "m4"), unread: 1, read: 3)
        _ = model.handle(.result(.conversation(stale, requested: .group("ops"))))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 3)
        _ = model.handle(.result(.sessions([stale] + Self.rows.dropFirst())))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 3)
        // A row as new as this one's is the server's: it also knows the read markers.
        let current = Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(6, "m6"), unread: 1, read: 5)
        _ = model.handle(.result(.conversation(current, requested: .group("ops"))))
        #expect(model.sessions.row(Fixture.opsID)?.unread == 1)
    }

    /// A burst of messages in a conversation whose row is being recounted fetches the row
    /// once at a time, not once per message; a fetch that fails or finds no row ends too.
    @Test func aBurstWhileARowIsRecountedFetchesItOnceAtATime() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        let ops = ConversationAddress.group("ops")
        // Message 5 after 3: a gap, so the row is recounted.
        #expect(model.handle(Fixture.event(5, .message, message: Fixture.message(5, "m5"))) == [.loadConversation(ops)])
        var effects: [ChatEffect] = []
        for seq in Int64(6)...50 { effects += model.handle(Fixture.event(seq, .message, message: Fixture.message(seq, "m\(seq)"))) }
        #expect(!effects.contains(.loadConversation(ops)))
        // The fetch failed: said, and the next message asks again.
        #expect(model.handle(.result(.conversationUnavailable(ops, reason: "timed out"))).isEmpty)
        #expect(model.status?.text.contains("timed out") == true)
        #expect(model.handle(Fixture.event(51, .message, message: Fixture.message(51, "m51"))) == [.loadConversation(ops)])
        let row = Fixture.conversation(Fixture.opsID, ops, name: "Operations", last: Fixture.message(51, "m51"), unread: 48, read: 3)
        #expect(model.handle(.result(.conversation(row, requested: ops))) == [])
        #expect(model.sessions.row(Fixture.opsID)?.unread == 48)
    }

    /// Messages that came while a new conversation's row was being fetched were not
    /// counted; a row fetched before them must not freeze the count short of them.
    @Test func messagesThatCameWhileTheRowWasFetchedAreRecounted() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        let carolID = ConversationID(rawValue: 99)
        func message(_ seq: Int64) -> ChatInput {
            Fixture.event(seq, .message, carolID, address: .user("carol"),
                          message: Fixture.message(seq, "m\(seq)", from: "carol", in: carolID))
        }
        func row(last seq: Int64) -> Conversation {
            Fixture.conversation(carolID, .user("carol"), name: "Carol",
                                 last: Fixture.message(seq, "m\(seq)", from: "carol", in: carolID), unread: Int(seq), read: 0)
        }
        let carol = ConversationAddress.user("carol")
        func answer(_ seq: Int64) -> ChatInput { .result(.conversation(row(last: seq), requested: carol)) }
        // One fetch at a time: messages 2 and 3, which need the row too, ask for one more.
        #expect(model.handle(message(1)) == [.loadConversation(carol)])
        #expect(model.handle(message(2)) == [])
        #expect(model.handle(message(3)) == [])
        // The first fetch answers with the row as it was at message 1; 2 and 3 are gone,
        // so it is fetched again, once.
        #expect(model.handle(answer(1)) == [.loadConversation(carol)])
        // Message 4 shows the gap: counted, and the row still being fetched.
        #expect(model.handle(message(4)) == [])
        #expect(model.sessions.row(carolID)?.unread == 2)
        // A late answer older than the row here: still short, so fetched again.
        #expect(model.handle(answer(3)) == [.loadConversation(carol)])
        // An answer as far along ends it.
        #expect(model.handle(answer(4)) == [])
        #expect(model.sessions.row(carolID)?.unread == 4)
        #expect(model.handle(message(5)) == [])
        #expect(model.sessions.row(carolID)?.unread == 5)
    }

    @Test func aMessageInAConversationWithoutARowFetchesTheRow() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        let carolID = ConversationID(rawValue: 99)
        let effects = model.handle(Fixture.event(1, .message, carolID, address: .user("carol"),
                                                 message: Fixture.message(1, "hello", from: "carol", in: carolID)))
        #expect(effects == [.loadConversation(.user("carol"))])
    }

    @Test func theSelectionFollowsItsConversationWhenRowsReorder() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        model.press(.down)
        #expect(model.sessions.selectedID == Fixture.opsID)
        _ = model.handle(Fixture.event(1, .message, Fixture.bobID, address: .user("bob"),
                                       message: Fixture.message(2, "again", in: Fixture.bobID, minute: 30)))
        #expect(model.sessions.selectedID == Fixture.opsID)
    }

    @Test func openingAConversationAsksForItsLatestPage() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        let effects = model.press(.enter)
        #expect(effects == [.loadHistory(DialogueKey(address: .user("bob"), id: Fixture.bobID), before: nil, limit: 50)])
        #expect(model.screen == .dialogue)
    }
}
