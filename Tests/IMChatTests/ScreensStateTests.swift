import IMChat
import IMClient
import IMProtocol
import Testing

/// Issue 27, item 6: what the screens still missed: nicknames and replies in the
/// Dialogue, groups' settings, the directory, groups told from rooms, invitations on
/// Sessions, readable errors, "…", plurals, wide clusters.
@Suite struct ScreensStateTests {
    static let key = DialogueKey(address: .group("ops"), id: Fixture.opsID)

    static func opsRow(unread: Int = 0) -> Conversation {
        Fixture.conversation(Fixture.opsID, .group("ops"), name: "Operations", last: Fixture.message(3, "x"), unread: unread, read: 3)
    }

    @Test func theDialogueShowsNicknamesAndAReplysQuoteSitsWithTheReply() {
        var model = Fixture.loggedIn(sessions: [Self.opsRow()])
        model.press(.enter)
        let question = Fixture.message(1, "when is the deploy?", from: "carol")
        let answer = Fixture.message(2, "at five", from: "bob", replyTo: question.id)
        _ = model.handle(.result(.history(Self.key, MessagePage(messages: [answer, question], nextBefore: nil), before: nil)))
        _ = model.handle(.result(.members(.group, "ops", [Fixture.member(Fixture.alice), Fixture.member(Fixture.bob), Fixture.member(Fixture.carol)])))
        let lines = model.screenText.split(separator: "\n").map(String.init)
        let asked = lines.firstIndex { $0.contains("Carol      when is the deploy?") }
        let quoted = lines.firstIndex { $0.contains("Bob        ↪ Carol: when is the deploy?") }
        #expect(asked != nil && quoted != nil)
        // The reply's text is right under its quote, in the same block.
        if let quoted { #expect(lines[quoted + 1].hasSuffix("at five") && lines[quoted + 1].hasPrefix("     ")) }
    }

    @Test func anOwnerChangesTheGroupsSettingsAndOnlyWhatChangedIsSent() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .down, .enter)
        _ = model.handle(.result(.info(Fixture.info("ops", members: 2), [Fixture.member(Fixture.alice, .owner), Fixture.member(Fixture.bob)])))
        model.press(.character("e"))
        guard case .edit(let form)? = model.contacts.info?.form else {
            Issue.record("no form")
            return
        }
        #expect(form.fields == [.title, .description, .join, .slowMode, .newcomers, .infoEditors])
        model.press(.down, .down)  // who may join
        model.press(.right)  // anyone
        model.press(.down)
        model.type("30s")
        model.press(.down)
        model.press(.character(" "))  // newcomers wait
        #expect(model.press(.enter) == [.updateInfo(.group, "ops", ConversationInfoUpdate(
            join: .open, newMembers: .restricted, slowMode: ConfigDuration("30s")))])
        // A member where only admins change the info gets no form; with members allowed,
        // only title and description.
        var member = Fixture.loggedIn()
        member.press(.character("2"), .down, .enter)
        var open = Fixture.info("ops", members: 2)
        open.infoEditableBy = .members
        _ = member.handle(.result(.info(open, [Fixture.member(Fixture.alice), Fixture.member(Fixture.bob, .owner)])))
        member.press(.character("e"))
        guard case .edit(let limited)? = member.contacts.info?.form else {
            Issue.record("no form for a member")
            return
        }
        #expect(limited.fields == [.title, .description])
        member.press(.escape)
        #expect(member.press(.enter) != [])  // Enter on the page opens the members' actions
    }

    @Test func aNewGroupGetsItsTitleSlowModeAndNewcomersRule() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .character("+"), .character("g"))
        model.type("Release-Crew")
        model.press(.tab)
        model.type("Release crew")
        model.press(.tab, .tab)
        model.press(.left)  // on approval
        model.press(.tab)
        model.type("fast")
        model.press(.enter)
        #expect(model.status?.text.contains("'fast' is not a duration") == true)
        model.press(.control("u"))
        model.type("10m")
        model.press(.tab, .right)
        #expect(model.press(.enter) == [.createGroup(CreateConversationRequest(
            name: "release-crew", title: "Release crew", join: .approval, newMembers: .restricted, slowMode: ConfigDuration("10m")))])
    }

    @Test func theDirectorySearchesAsOneTypesPagesAndJoins() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .character("+"))
        #expect(model.press(.character("b")) == [.loadDirectory(search: "", after: nil)])
        let first = DirectoryPage(groups: (1...3).map {
            DirectoryGroup(name: "g\($0)", title: "Group \($0)", description: "number \($0)", join: $0 == 2 ? .approval : .open, members: $0)
        }, nextAfter: "g3")
        _ = model.handle(.result(.directory(first, search: "", after: nil)))
        var text = model.screenText
        #expect(text.contains("Group 1 #g1 · group · 1 member · open"))
        #expect(text.contains("Group 2 #g2 · group · 2 members · on approval"))
        // ↓ onto the last asks for the next page, once.
        #expect(model.press(.down) == [])
        #expect(model.press(.down) == [.loadDirectory(search: "", after: "g3")])
        #expect(model.press(.down) == [])
        #expect(model.contacts.directory?.selection == 2)
        // Typing searches; an answer for an older search is dropped.
        #expect(model.press(.character("c")) == [.loadDirectory(search: "c", after: nil)])
        _ = model.handle(.result(.directory(first, search: "", after: "g3")))
        #expect(model.contacts.directory?.groups.count == 3)
        _ = model.handle(.result(.directory(DirectoryPage(groups: [DirectoryGroup(name: "chess", title: "Chess", description: "", join: .open, members: 12)], nextAfter: nil), search: "c", after: nil)))
        text = model.screenText
        #expect(text.contains("Chess #chess · group · 12 members · open") && !text.contains("Group 1"))
        #expect(model.press(.enter) == [.joinGroup("chess")])
        _ = model.handle(.result(.joined(Fixture.info("chess", id: ConversationID(rawValue: 40)))))
        #expect(model.contacts.directory == nil && model.screen == .dialogue)
        // /list opens it from a conversation too.
        model.type("/list chess")
        #expect(model.press(.enter) == [.loadDirectory(search: "chess", after: nil)])
        #expect(model.screen == .contacts && model.contacts.directory?.query == "chess")
    }

    @Test func invitationsAndRequestsShowOnSessionsAndInTheTabBar() {
        var model = Fixture.loggedIn(sessions: [Self.opsRow(unread: 1)])
        _ = model.handle(.result(.contacts(ContactLists(
            users: [Fixture.bob], invites: [GroupInvite(group: "design", user: "alice", invitedBy: "carol", createdAt: Fixture.start)],
            requests: [GroupJoinRequest(group: "ops", user: "dave", createdAt: Fixture.start)], decides: ["ops"]))))
        let text = model.screenText
        #expect(text.contains("2 Contacts (2 waiting)"))
        #expect(text.contains("Waiting for you"))
        #expect(text.contains("#design invited by carol"))
        #expect(text.contains("dave asks to join #ops"))
        // The conversation stays selected; ↑ goes to the waiting ones and their keys work here.
        #expect(model.sessions.waitingSelected == nil)
        model.press(.up)
        #expect(model.sessions.waitingSelected == 1)
        #expect(model.press(.character("a")) == [.approveRequest(group: "ops", user: "dave")])
        model.press(.up)
        #expect(model.press(.enter) == [.joinGroup("design")])
        #expect(model.press(.character("x")) == [.declineInvite(group: "design")])
        model.press(.down, .down)
        #expect(model.sessions.waitingSelected == nil)
        if case .loadHistory? = model.press(.enter).first {} else { Issue.record("the conversation did not open") }
    }

    @Test func groupsAndRoomsAreToldApartEverywhere() {
        var model = Fixture.loggedIn(sessions: [
            Self.opsRow(),
            Fixture.conversation(ConversationID(rawValue: 12), .room("lobby"), name: "Lobby", last: nil, unread: 0, read: 0),
        ])
        var text = model.screenText
        #expect(text.contains("# Operations · group") && text.contains("& Lobby · room"))
        model.press(.character("2"))
        text = model.screenText
        #expect(text.contains("#ops · group · 2 members") && text.contains("&lobby · room · 5 present"))
        model.press(.character("1"), .enter)
        #expect(model.screenText.contains("#ops · group"))
    }

    @Test func anErrorWiderThanTheScreenIsShownWhole() {
        var model = Fixture.loggedIn()
        let reason = "cannot join the group secret-plans: no group 'secret-plans' (a group that only its members may see answers as one that does not exist; ask one of its admins to invite you)"
        _ = model.handle(.result(.failed(reason)))
        let text = model.screenText
        let words = reason.split(separator: " ")
        #expect(words.allSatisfy { text.contains($0) })
        #expect(text.contains("any key closes this"))
        model.press(.character("x"))
        #expect(!model.screenText.contains("any key closes this"))
    }

    @Test func longDescriptionsEndWithAnEllipsisAndCountsHaveTheirPlural() {
        var model = Fixture.loggedIn()
        var info = Fixture.info("ops", members: 1)
        info.description = String(repeating: "A long description of what the group is for. ", count: 12)
        _ = model.handle(.result(.contacts(ContactLists(users: [Fixture.bob], groups: [info]))))
        model.press(.character("2"), .down)
        #expect(model.screenText.contains("#ops · group · 1 member\n") || model.screenText.contains("#ops · group · 1 member "))
        model.press(.enter)
        _ = model.handle(.result(.info(info, [Fixture.member(Fixture.alice, .owner)])))
        let text = model.screenText
        #expect(text.contains("group · 1 member · created by alice"))
        let described = text.split(separator: "\n").drop { !$0.contains("Description") }.prefix(3)
        #expect(described.count == 3 && described.allSatisfy { $0.contains("the group") || $0.contains("description") || $0.contains("for.") })
        #expect(described.last?.hasSuffix("…") == true)
    }

    @Test func aWideClusterIsDrawnOverTwoBlankCells() {
        var renderer = ScreenRenderer()
        var grid = CellGrid(width: 10, height: 1)
        grid.put("ab", column: 0, row: 0)
        _ = renderer.render(grid)
        grid.put("好", column: 0, row: 0)
        let bytes = renderer.render(grid)
        // Two spaces first, then back to the column for the cluster.
        #expect(bytes.contains("  \u{1B}[1;1H好"))
    }

    @Test func serverErrorTextsAreDrawnSanitized() {
        var model = Fixture.loggedIn()
        _ = model.handle(.result(.failed("refused\r\u{1B}]0;owned\u{07} by \u{202E}gnp.exe")))
        let grid = ChatView.render(model)
        let cells = (0..<grid.height).flatMap { row in (0..<grid.width).map { grid[$0, row].text } }.joined()
        #expect(!cells.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E })
        #expect(grid.text.contains("refused�"))
    }
}
