import IMChat
import IMClient
import IMProtocol
import Testing

/// Issue 27, item 2: keys that match the habits of IRC and chat-app users, and nothing
/// destructive on one key.
@Suite struct HabitsStateTests {
    static let bobKey = DialogueKey(address: .user("bob"), id: Fixture.bobID)

    static var rows: [Conversation] {
        [
            Fixture.conversation(Fixture.bobID, .user("bob"), name: "Bob", last: Fixture.message(7, "see you", in: Fixture.bobID), unread: 2, read: 5),
            Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(30, "deploy finished", from: "alice"), unread: 0, read: 30),
            Fixture.conversation(ConversationID(rawValue: 12), .room("lobby"), name: "Lobby", last: Fixture.message(3, "hi all", in: ConversationID(rawValue: 12)), unread: 4, read: 0),
        ]
    }

    @Test func quittingAsksFirstOnQAndCtrlC() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        #expect(model.press(.character("q")) == [])
        #expect(model.confirmation == .quit)
        #expect(model.screenText.contains("Quit switchboard chat? y quits"))
        #expect(model.press(.escape) == [])
        #expect(model.confirmation == nil && model.screen == .sessions)
        #expect(model.press(.control("c")) == [])
        #expect(model.press(.control("c")) == [.quit])  // twice quits
        model.press(.control("c"))
        #expect(model.press(.character("y")) == [.quit])
        #expect(model.handle(.terminalClosed) == [.quit])  // nobody left to ask
    }

    @Test func leavingAGroupAsksFirst() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .down, .enter)  // the group's info page
        #expect(model.press(.character("l")) == [])
        #expect(model.confirmation == .leave(.group, "ops"))
        #expect(model.press(.character("n")) == [])
        #expect(model.contacts.info != nil)
        model.press(.character("l"))
        #expect(model.press(.character("y")) == [.leave(.group, "ops")])
    }

    @Test func theMemberMenuMovesWithArrowsOnlySoNoLetterDoesTwoThings() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .down, .enter)
        let members = [Fixture.member(Fixture.alice, .owner), Fixture.member(Fixture.bob), Fixture.member(Fixture.carol)]
        _ = model.handle(.result(.info(Fixture.info("ops", members: 3), members)))
        model.press(.down, .down)  // bob
        model.press(.enter)
        #expect(model.contacts.info?.actionMenu == 0)
        // k once moved the cursor up (and the next letter chose Ban): now k is nothing.
        model.press(.character("k"))
        #expect(model.contacts.info?.actionMenu == 0 && model.contacts.info?.form == nil)
        model.press(.down)
        #expect(model.contacts.info?.actionMenu == 1)
        // r picks "Remove from the group…", which asks for a reason first.
        model.press(.character("r"))
        #expect(model.contacts.info?.form == .moderate(ContactsState.ModerationForm(action: .kick, user: "bob")))
        #expect(MemberActions.allowed(me: .owner, target: members[1], myName: "alice").map(MemberActions.shortcut) == ["m", "r", "b", "p"])
    }

    @Test func altNumbersCtrlNPAndAltAGoFromConversationToConversationKeepingDrafts() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        let effects = model.press(.alt("3"))
        #expect(effects.first == .loadHistory(DialogueKey(address: .group("ops"), id: Fixture.opsID), before: nil, limit: 50))
        #expect(model.dialogue?.title == "Operations")
        model.type("half a thought")
        model.press(.control("p"))  // Sessions lists Bob and Lobby (unread) first
        #expect(model.dialogue?.title == "Lobby")
        #expect(model.dialogue?.compose.isEmpty == true)
        model.press(.control("n"))
        #expect(model.dialogue?.title == "Operations")
        #expect(model.dialogue?.compose.text == "half a thought")  // the draft came back
        // Alt-A: the next conversation with new messages.
        model.press(.alt("a"))
        #expect(model.dialogue?.title == "Bob")
        model.press(.escape)
        #expect(model.screen == .sessions)
        model.press(.alt("9"))
        #expect(model.status?.text == "no conversation 9: Sessions lists 3 conversations")
    }

    @Test func theActivityLineNamesOtherConversationsWithNewMessages() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        model.press(.alt("3"))
        _ = model.handle(.result(.history(DialogueKey(address: .group("ops"), id: Fixture.opsID), Fixture.page(29...30, total: 30), before: nil)))
        let text = model.screenText
        #expect(text.contains("─ new: Alt-1 Bob (2) · Alt-2 Lobby (4) ─"))
        #expect(model.hotlist.map(\.number) == [1, 2])
    }

    @Test func aMessageOutOfSightRingsTheBellWhenAskedFor() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        model.bell = true
        let elsewhere = model.handle(Fixture.event(1, .message, Fixture.bobID, address: .user("bob"), message: Fixture.message(8, "ping", in: Fixture.bobID)))
        #expect(elsewhere.contains(.bell))
        model.bell = false
        let quiet = model.handle(Fixture.event(2, .message, Fixture.bobID, address: .user("bob"), message: Fixture.message(9, "ping", in: Fixture.bobID)))
        #expect(!quiet.contains(.bell))
        #expect(ChatView.terminalTitle(model) == "(8) switchboard · alice")
    }

    @Test func upInAnEmptyInputEditsTheLastOwnMessage() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        model.press(.alt("3"))
        let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)
        let page = MessagePage(messages: [Fixture.message(3, "from bob"), Fixture.message(2, "mine, with a typo", from: "alice"), Fixture.message(1, "older")], nextBefore: nil)
        _ = model.handle(.result(.history(key, page, before: nil)))
        model.press(.up)
        #expect(model.dialogue?.editing?.seq == 2)
        #expect(model.dialogue?.compose.text == "mine, with a typo")
        model.press(.escape)
        #expect(model.dialogue?.editing == nil && model.dialogue?.compose.isEmpty == true)
    }

    @Test func slashCommandsAreReadAndAnUnknownOneIsAskedAbout() {
        let cases: [(String, SlashCommand)] = [
            ("/join #ops", .join(kind: .group, name: "ops")), ("/join &lobby", .join(kind: .room, name: "lobby")),
            ("/j team", .join(kind: .group, name: "team")), ("/part", .leave), ("/leave", .leave),
            ("/invite carol", .invite("carol")), ("/nick Ali", .nick("Ali")), ("/me waves", .me("waves")),
            ("/msg bob are you there?", .msg(user: "bob", text: "are you there?")), ("/query bob", .query("bob")),
            ("/topic the on-call team", .topic("the on-call team")), ("/topic", .topic(nil)), ("/whois bob", .whois("bob")),
            ("/names", .names), ("/kick bob flooding", .moderate(action: "kick", user: "bob", argument: "flooding")),
            ("/mute bob 10m", .moderate(action: "mute", user: "bob", argument: "10m")), ("/block bob", .block("bob")),
            ("/list chess", .list("chess")), ("/create team", .create("team")), ("/quit", .quit), ("/help", .help),
            ("/close", .close), ("/invite", .usage("/invite USER")),
        ]
        for (line, expected) in cases {
            #expect(SlashCommand.parse(line) == .success(expected), "\(line)")
        }
        #expect(SlashCommand.parse("/frobnicate now") == .failure(UnknownCommand(word: "frobnicate")))
        #expect(SlashCommand.parse("//etc/hosts is the file") == nil)
        #expect(SlashCommand.literal("//etc/hosts is the file") == "/etc/hosts is the file")
        #expect(SlashCommand.parse("plain text") == nil)
    }

    /// A `/word` that is no command of the client goes to a bot as its command, unasked.
    @Test func aSlashWordToABotIsTheBotsCommand() {
        var helpdesk = Fixture.user("helpdesk", id: 5, nickname: "Help Desk")
        helpdesk.isBot = true
        let deskID = ConversationID(rawValue: 13)
        var model = Fixture.loggedIn(sessions: [
            Fixture.conversation(deskID, .user("helpdesk"), name: "Help Desk", last: Fixture.message(1, "Hi!", in: deskID), unread: 9, read: 0),
        ] + Self.rows)
        _ = model.handle(.result(.contacts(ContactLists(users: [Fixture.bob, helpdesk], groups: [], rooms: []))))
        model.press(.alt("1"))
        model.type("/query helpdesk")
        model.press(.enter)
        #expect(model.dialogue?.key.address == .user("helpdesk"))
        model.type("/hours")
        let key = DialogueKey(address: .user("helpdesk"), id: deskID)
        #expect(model.press(.enter) == [.send(key, text: "/hours", replyTo: nil, clientID: "test-1")])
        #expect(model.confirmation == nil)
        // To a person, the same word is asked about.
        model.type("/query bob")
        model.press(.enter)
        model.type("/hours")
        #expect(model.press(.enter) == [])
        #expect(model.confirmation == .unknownCommand(word: "hours", line: "/hours"))
    }

    @Test func commandsInTheInputLineDoWhatTheySay() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        model.press(.alt("3"))
        model.type("/frobnicate now")
        #expect(model.press(.enter) == [])
        #expect(model.confirmation == .unknownCommand(word: "frobnicate", line: "/frobnicate now"))
        #expect(model.screenText.contains("/frobnicate is not a command"))
        model.press(.escape)
        #expect(model.dialogue?.compose.text == "/frobnicate now")  // still there to edit
        model.press(.control("u"))
        model.type("//frobnicate is a word")
        let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)
        #expect(model.press(.enter) == [.send(key, text: "/frobnicate is a word", replyTo: nil, clientID: "test-1")])
        _ = model.handle(.result(.sent(key, clientID: "test-1", Fixture.message(31, "/frobnicate is a word", from: "alice", clientID: "test-1"))))
        model.type("/me waves")
        #expect(model.press(.enter) == [.send(key, text: "/me waves", replyTo: nil, clientID: "test-2")])
        #expect(model.screenText.contains("* Alice Liddell waves"))
        model.type("/invite carol")
        #expect(model.press(.enter) == [.invite(group: "ops", user: "carol")])
        model.type("/nick Ali")
        #expect(model.press(.enter) == [.updateProfile(ProfileUpdate(nickname: "Ali"))])
        model.type("/topic pager duty")
        #expect(model.press(.enter) == [.updateInfo(.group, "ops", ConversationInfoUpdate(description: "pager duty"))])
        model.type("/mute bob 10m flooding")
        #expect(model.press(.enter) == [.moderate(group: "ops", ModerationRequest(action: .mute, user: "bob", duration: ConfigDuration("10m"), reason: "flooding"))])
        model.type("/join #team")
        #expect(model.press(.enter) == [.joinGroup("team")])
        model.type("/leave")
        model.press(.enter)
        #expect(model.confirmation == .leave(.group, "ops"))
        #expect(model.press(.character("y")) == [.leave(.group, "ops")])
        model.type("/help")
        model.press(.enter)
        #expect(model.showHelp && model.screenText.contains("Commands of the input line"))
        model.press(.escape)
        model.type("/msg carol lunch?")
        let sent = model.press(.enter)
        #expect(sent.contains { if case .send(let key, "lunch?", nil, _) = $0 { key.address == .user("carol") } else { false } })
        #expect(model.dialogue?.title == "Operations")  // /msg stays here
        model.type("/query bob")
        model.press(.enter)
        #expect(model.dialogue?.title == "Bob")
    }

    @Test func anActionShowsAsWhatSomeoneDoes() {
        var model = Fixture.loggedIn(sessions: Self.rows)
        model.press(.alt("3"))
        let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)
        _ = model.handle(.result(.history(key, MessagePage(messages: [Fixture.message(1, "/me waves at everyone")], nextBefore: nil), before: nil)))
        #expect(model.screenText.contains("* Bob waves at everyone"))
    }
}
