import IMChat
import IMClient
import IMProtocol
import Testing

/// Contacts with its "+" menu and info pages, Profile, and the screens that interrupt.
@Suite struct MainScreensTests {
    @Test func thePlusMenuAsksForANameAndEachItemBecomesItsCall() {
        let cases: [(Character, String, ChatEffect)] = [
            ("a", "carol", .addContact("carol")), ("j", "ops", .joinGroup("ops")), ("r", "lobby", .createRoom("lobby")), ("e", "lobby", .enterRoom("lobby")),
        ]
        for (letter, name, expected) in cases {
            var model = Fixture.loggedIn()
            model.press(.character("2"))
            model.press(.character("+"))
            #expect(model.contacts.menu == 0)
            model.press(.character(letter))
            #expect(model.contacts.prompt != nil)
            #expect(model.press(.enter) == [])  // empty: nothing is sent
            model.type(name)
            #expect(model.press(.enter) == [expected])
        }
    }

    @Test func creatingAGroupOpensItsDialogue() {
        var model = Fixture.loggedIn()
        model.press(.character("2"))
        model.press(.character("+"))
        model.press(.character("g"))
        model.type("ops")
        #expect(model.press(.enter) == [.createGroup(CreateConversationRequest(name: "ops", join: .invite))])
        let effects = model.handle(.result(.joined(Fixture.info("ops"))))
        let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)
        #expect(effects == [.loadHistory(key, before: nil, limit: 50), .loadMembers(.group, "ops"), .loadConversation(.group("ops"))])
        #expect(model.screen == .dialogue)
        #expect(model.contacts.groupForm == nil)
        model.press(.escape)
        #expect(model.screen == .contacts)
    }

    @Test func aFailedCreateKeepsThePromptAndSaysWhy() {
        var model = Fixture.loggedIn()
        model.press(.character("2"))
        model.press(.character("+"))
        model.press(.character("g"))
        model.type("ops")
        model.press(.enter)
        _ = model.handle(.result(.failed("cannot create the group ops: a group named 'ops' already exists")))
        #expect(model.contacts.groupForm?.name.text == "ops")
        #expect(model.screenText.contains("already exists"))
    }

    @Test func infoPagesShowMembersAndGroupsCanBeEdited() {
        var model = Fixture.loggedIn()
        model.press(.character("2"))
        model.press(.down)  // the group
        #expect(model.press(.enter) == [.loadInfo(.group, "ops")])
        let members = [Member(user: Fixture.alice, role: .owner, joinedAt: Fixture.start),
                       Member(user: Fixture.bob, role: .member, joinedAt: Fixture.start)]
        _ = model.handle(.result(.info(Fixture.info("ops"), members)))
        let text = model.screenText
        #expect(text.contains("The on-call team"))
        #expect(text.contains("@alice · owner"))
        model.press(.character("e"))
        model.press(.control("u"))
        model.type("Ops")
        model.press(.tab)
        model.press(.control("u"))
        model.type("pager duty")
        #expect(model.press(.enter) == [.updateInfo(.group, "ops", ConversationInfoUpdate(title: "Ops", description: "pager duty"))])
        #expect(model.press(.escape) == [])
        model.press(.escape)
        #expect(model.contacts.info == nil)
    }

    @Test func aContactsInfoPageMessagesAndRemoves() {
        var model = Fixture.loggedIn()
        model.press(.character("2"))
        #expect(model.press(.enter) == [.loadUser("bob")])
        #expect(model.press(.character("x")) == [])  // asks first
        #expect(model.confirmation == .removeContact("bob"))
        #expect(model.screenText.contains("Remove bob from your contacts? y removes"))
        #expect(model.press(.character("y")) == [.removeContact("bob")])
        _ = model.handle(.result(.contactRemoved("bob")))
        #expect(model.contacts.users.isEmpty)
        #expect(model.contacts.info == nil)
    }

    @Test func profileEditsTheNicknameAndLogsOutAfterAsking() {
        var model = Fixture.loggedIn()
        model.press(.character("3"))
        model.press(.character("n"))
        model.press(.control("u"))
        model.type("Al")
        #expect(model.press(.enter) == [.updateProfile(ProfileUpdate(nickname: "Al"))])
        var renamed = Fixture.alice
        renamed.nickname = "Al"
        _ = model.handle(.result(.profileUpdated(renamed)))
        #expect(model.me?.nickname == "Al")
        #expect(model.screenText.contains("Saved."))
        model.press(.character("o"))
        #expect(model.screenText.contains("Log out of alice?"))
        #expect(model.press(.character("n")) == [])
        model.press(.character("o"))
        #expect(model.press(.character("y")) == [.logout])
        #expect(model.handle(.result(.loggedOut)) == [.loadLastUser])
        #expect(model.screen == .login)
        #expect(model.me == nil)
        #expect(model.sessions.rows.isEmpty)
    }

    @Test func aKickOutShowsItsScreenAndEnterGoesBackToLogin() {
        var model = Fixture.loggedIn()
        _ = model.handle(.live(.event(Event(position: 5, type: .kickedOut, at: Fixture.start, reason: "logged in on another device"))))
        _ = model.handle(.liveEnded(IMClientError(.kickedOut, "logged in elsewhere: logged in on another device")))
        #expect(model.interruption == .kickedOut("logged in on another device"))
        #expect(model.screenText.contains("Logged in elsewhere"))
        #expect(model.press(.character("1")) == [])  // nothing behind it takes keys
        #expect(model.press(.enter) == [.logout])
        #expect(model.handle(.result(.loggedOut)) == [.loadLastUser])
        #expect(model.screen == .login)
        #expect(model.login.note == "logged in on another device")
    }

    /// Issue 27, item 5: one connection state, shown the same by the title bar, the
    /// "Connection lost" screen and the status line; the screen closes once connected.
    @Test func aLostConnectionShowsOneStateEverywhereAndClosesOnceConnected() {
        var model = Fixture.loggedIn()
        #expect(model.connection == .online)
        #expect(model.screenText.contains("alice ● online"))
        let lost = IMClientError(.unreachable, "server not reachable at http://127.0.0.1:8080 (connection refused)")
        _ = model.handle(.live(.disconnected(lost, retryIn: .milliseconds(2500))))
        #expect(model.connection == .lost(lost.message, retryIn: 3))
        var text = model.screenText
        #expect(text.contains("Connection lost") && text.contains("trying again in 3 s"))
        #expect(text.contains("alice ○ offline") && !text.contains("● online"))
        #expect(model.press(.enter) == [.startLive])
        #expect(model.connection == .connecting)
        #expect(!model.screenText.contains("Connection lost") && model.screenText.contains("◌ connecting"))
        #expect(model.handle(.liveReady) == [.loadSessions, .loadContacts])
        #expect(model.connection == .online && model.status?.text == nil)
        _ = model.handle(.live(.disconnected(lost, retryIn: .seconds(1))))
        model.press(.escape)
        #expect(model.lostDismissed)
        text = model.screenText
        #expect(!text.contains("Connection lost") && text.contains("○ offline"))
        _ = model.handle(.live(.disconnected(lost, retryIn: .seconds(2))))
        #expect(!model.screenText.contains("Connection lost"))  // put aside: it stays in the title bar
        _ = model.handle(.live(.reconnected))
        text = model.screenText
        #expect(text.contains("● online") && text.contains("connected again") && !text.contains("offline"))
        _ = model.handle(.live(.disconnected(lost, retryIn: .seconds(2))))
        #expect(model.screenText.contains("Connection lost"))  // a new loss shows again
        _ = model.handle(.live(.reconnected))
        #expect(!model.screenText.contains("Connection lost"))
        // Typing on: the key goes to the screen below, which it puts in front again.
        _ = model.handle(.live(.disconnected(lost, retryIn: .seconds(2))))
        #expect(model.press(.character("2")) == [])
        #expect(model.lostDismissed && model.screen == .contacts && !model.screenText.contains("Connection lost"))
    }

    @Test func everyScreenShowsItsKeysAndF1TheFullList() {
        var model = Fixture.loggedIn()
        for screen in ["1", "2", "3"] {
            model.press(.character(Character(screen)))
            #expect(model.screenText.split(separator: "\n").last?.contains("help") == true)
            model.press(.function(1))
            #expect(model.screenText.contains("Keys"))
            model.press(.character("x"))
            #expect(!model.showHelp)
        }
    }

    /// Issue 27, item 2: Alt with a letter is Meta, never Esc and then the letter: Alt-b
    /// in a direct chat opened from the contact's page moves back a word, it does not go
    /// back and block the contact (nor Alt-x remove them), and the draft stays.
    @Test func altWithALetterIsMetaNeverEscThenTheLetter() {
        var model = Fixture.loggedIn()
        model.press(.character("2"))
        model.press(.enter)  // bob's info page
        model.press(.character("m"))  // his conversation
        #expect(model.screen == .dialogue)
        model.type("see you there")
        for letter in ["b", "x", "l", "q"] {
            #expect(model.press(.alt(Character(letter))) == [])
        }
        #expect(model.screen == .dialogue)
        #expect(model.confirmation == nil && model.contacts.blocked.isEmpty)
        #expect(model.dialogue?.compose.text == "see you there")
        #expect(model.dialogue?.compose.caret == 8)  // Alt-b: back to the start of "there"
    }

    @Test func aResizeRedrawsAtTheNewSize() {
        var model = Fixture.loggedIn()
        _ = model.handle(.resize(columns: 100, rows: 30))
        let grid = ChatView.render(model)
        #expect(grid.width == 100 && grid.height == 30)
    }
}
