import IMChat
import IMClient
import IMProtocol
import Testing

/// Editing and deleting messages in the Dialogue, and edits and deletions of others
/// arriving live and in history.
@Suite struct MessageChangesTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    /// ops open with bob's 1, alice's 2 and bob's 3; alice's role as the members list says.
    static func open(role: MemberRole = .member) -> ChatModel {
        var model = Fixture.loggedIn(sessions: [
            Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(3, "third"), unread: 0, read: 3),
        ])
        let effects = model.press(.enter)
        #expect(effects == [.loadHistory(key, before: nil, limit: 50), .loadMembers(.group, "ops")])
        let messages = [Fixture.message(1, "first"), Fixture.message(2, "mine, with a typo", from: "alice"), Fixture.message(3, "third")]
        _ = model.handle(.result(.history(key, MessagePage(messages: messages.reversed(), nextBefore: nil), before: nil)))
        _ = model.handle(.result(.members(.group, "ops", [Fixture.member(Fixture.alice, role), Fixture.member(Fixture.bob)])))
        return model
    }

    @Test func editingOwnMessageFillsTheInputLineAndSendsTheNewText() {
        var model = Self.open()
        model.type("a draft")
        model.press(.tab)  // selects the newest: bob's
        #expect(model.dialogue?.actions(for: model.dialogue?.selected, me: "alice") == [.reply])
        model.press(.character("e"))
        #expect(model.dialogue?.editing == nil)
        #expect(model.screenText.contains("Only your own messages can be edited."))
        model.press(.up)
        #expect(model.dialogue?.actions(for: model.dialogue?.selected, me: "alice") == [.reply, .edit, .delete])
        model.press(.character("e"))
        #expect(model.dialogue?.editing?.seq == 2)
        #expect(model.dialogue?.compose.text == "mine, with a typo")
        #expect(model.screenText.contains("✎ mine, with a typo"))
        model.press(.control("u"))
        model.type("mine, fixed")
        let id = Fixture.message(2, "").id
        #expect(model.press(.enter) == [.editMessage(Self.key, id, text: "mine, fixed")])
        // The draft comes back; the answer shows the new text with its mark.
        #expect(model.dialogue?.compose.text == "a draft")
        var edited = Fixture.message(2, "mine, fixed", from: "alice")
        edited.editedAt = Fixture.time(9)
        _ = model.handle(.result(.messageChanged(Self.key, edited)))
        #expect(model.screenText.contains("Alice Lid… mine, fixed (edited)"))
    }

    @Test func escCancelsAnEditAndAnUnchangedOneSendsNothing() {
        var model = Self.open()
        model.press(.tab, .up, .character("e"), .escape)
        #expect(model.dialogue?.editing == nil)
        #expect(model.dialogue?.compose.isEmpty == true)
        #expect(model.screen == .dialogue)
        model.press(.tab, .up, .character("e"))
        #expect(model.press(.enter) == [])
        #expect(model.dialogue?.editing == nil)
    }

    @Test func aFailedEditPutsTheTextBackWithTheReason() {
        var model = Self.open()
        model.press(.tab, .up, .character("e"))
        model.type("!")
        let id = Fixture.message(2, "").id
        _ = model.press(.enter)
        _ = model.handle(.result(.editFailed(
            Self.key, id, text: "mine, with a typo!", "you are muted in this conversation until a moderator unmutes you",
            block: .muted(until: nil))))
        #expect(model.dialogue?.editing?.id == id)
        #expect(model.dialogue?.compose.text == "mine, with a typo!")
        #expect(model.screenText.contains("Not edited: you are muted"))
        #expect(model.dialogue?.posting == .muted(until: nil))
    }

    @Test func deletingAsksFirstAndOnlyYDeletes() {
        var model = Self.open()
        model.press(.tab, .up)
        #expect(model.press(.character("d")) == [])
        #expect(model.screenText.contains("Delete this message for everyone?"))
        #expect(model.press(.character("n")) == [])
        #expect(model.screenText.contains("Not deleted."))
        model.press(.delete)
        let id = Fixture.message(2, "").id
        #expect(model.press(.character("y")) == [.deleteMessage(Self.key, id)])
        var gone = Fixture.message(2, "", from: "alice")
        gone.deletedAt = Fixture.time(9)
        _ = model.handle(.result(.messageChanged(Self.key, gone)))
        #expect(!model.screenText.contains("mine, with a typo"))
        #expect(model.screenText.contains("Alice Lid… (message deleted)"))
        #expect(model.dialogue?.actions(for: .message(2), me: "alice") == [])
    }

    @Test func aGroupsAdminDeletesOthersMessagesAndAMemberCannot() {
        var member = Self.open(role: .member)
        member.press(.tab)
        #expect(member.press(.character("d")) == [])
        #expect(member.dialogue?.confirmingDelete == nil)
        #expect(member.screenText.contains("Only your own messages can be deleted"))
        var admin = Self.open(role: .admin)
        admin.press(.tab)
        #expect(admin.dialogue?.actions(for: admin.dialogue?.selected, me: "alice") == [.reply, .delete])
        admin.press(.character("d"))
        #expect(admin.press(.character("y")) == [.deleteMessage(Self.key, Fixture.message(3, "").id)])
    }

    @Test func othersEditsAndDeletionsArriveLiveInTheDialogueAndTheSessionsList() {
        var model = Self.open()
        var edited = Fixture.message(3, "third, reworded")
        edited.editedAt = Fixture.time(10)
        _ = model.handle(Fixture.event(1, .messageEdited, message: edited))
        #expect(model.screenText.contains("Bob        third, reworded (edited)"))
        #expect(model.sessions.row(Fixture.opsID)?.lastMessage?.text == "third, reworded")
        var deleted = Fixture.message(1, "")
        deleted.deletedAt = Fixture.time(11)
        _ = model.handle(Fixture.event(2, .messageDeleted, message: deleted, by: "bob"))
        #expect(!model.screenText.contains("first"))
        #expect(model.screenText.contains("Bob        (message deleted)"))
        // A deleted message no longer counts as something to reply to or quote.
        #expect(model.dialogue?.actions(for: .message(1), me: "alice") == [])
    }

    @Test func historyShowsEditsAndDeletionsAsTheServerKeepsThem() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .down, .character("m"))
        var edited = Fixture.message(1, "said better")
        edited.editedAt = Fixture.time(5)
        var deleted = Fixture.message(2, "")
        deleted.deletedAt = Fixture.time(6)
        let reply = Fixture.message(3, "about that", replyTo: deleted.id)
        _ = model.handle(.result(.history(Self.key, MessagePage(messages: [reply, deleted, edited], nextBefore: nil), before: nil)))
        let text = model.screenText
        #expect(text.contains("said better (edited)"))
        #expect(text.contains("(message deleted)"))
        #expect(text.contains("↪ Bob: (message deleted)"))
    }

    @Test func theEditedMarkTakesALineOfItsOwnWhenTheLastOneIsFull() {
        var model = Self.open()
        // 80 columns less 17 for time and name: 63 for text.
        var long = Fixture.message(3, String(repeating: "x", count: 60))
        long.editedAt = Fixture.time(10)
        _ = model.handle(Fixture.event(1, .messageEdited, message: long))
        let lines = model.screenText.split(separator: "\n")
        let index = lines.firstIndex { $0.contains(String(repeating: "x", count: 60)) }
        #expect(index.map { lines[$0 + 1].hasSuffix("(edited)") } == true)
    }
}
