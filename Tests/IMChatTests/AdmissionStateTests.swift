import IMChat
import IMClient
import IMProtocol
import Testing

/// Getting into groups from the Contacts screen: the join policy of a new group,
/// invitations accepted or declined, join requests asked, approved and denied, and
/// blocking a contact.
@Suite struct AdmissionStateTests {
    static let invite = GroupInvite(group: "ops", user: "alice", invitedBy: "bob", createdAt: Fixture.start)
    static let carolAsks = GroupJoinRequest(group: "team", user: "carol", createdAt: Fixture.start)

    /// alice with an invitation to ops (not joined) and carol's request to team, which alice decides.
    static func withInvitationAndRequest() -> ChatModel {
        var model = Fixture.loggedIn()
        _ = model.handle(.result(.contacts(ContactLists(
            users: [Fixture.bob], groups: [Fixture.info("team", id: ConversationID(rawValue: 20))],
            invites: [invite], requests: [carolAsks], decides: ["team"]))))
        model.press(.character("2"))
        return model
    }

    @Test func creatingAGroupAsksWhoMayJoinInviteOnlyFirst() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .character("+"), .character("g"))
        model.type("ops")
        #expect(model.contacts.groupForm?.join == .invite)
        #expect(model.screenText.contains("[invited only]"))
        // Tab goes to the next field; on a choice ←→ change it.
        model.press(.tab, .tab, .tab)
        #expect(model.contacts.groupForm?.focus == .join)
        model.press(.right)
        #expect(model.contacts.groupForm?.join == .open)
        model.press(.right)
        #expect(model.screenText.contains("[on approval]"))
        #expect(model.screenText.contains("an admin approves each request"))
        model.press(.right, .left)
        #expect(model.press(.enter) == [.createGroup(CreateConversationRequest(name: "ops", join: .approval))])
    }

    @Test func anInvitationShowsFirstInContactsAndEnterJoins() {
        var model = Self.withInvitationAndRequest()
        let text = model.screenText
        #expect(text.contains("Invitations (1)"))
        #expect(text.contains("invited by bob · Enter joins, x declines"))
        #expect(text.contains("Join requests (1)"))
        #expect(model.contacts.selectedItem == .invite(Self.invite))
        #expect(text.split(separator: "\n").last?.contains("Enter/a join") == true)
        #expect(model.press(.enter) == [.joinGroup("ops")])
        let effects = model.handle(.result(.joined(Fixture.info("ops"))))
        #expect(effects.contains(.loadHistory(DialogueKey(address: .group("ops"), id: Fixture.opsID), before: nil, limit: 50)))
        #expect(model.screen == .dialogue)
        #expect(model.contacts.invites.isEmpty)
    }

    @Test func anInvitationCanBeDeclined() {
        var model = Self.withInvitationAndRequest()
        #expect(model.press(.character("x")) == [.declineInvite(group: "ops")])
        _ = model.handle(.result(.settled(group: "ops", user: "alice", approved: false)))
        #expect(model.contacts.invites.isEmpty)
        #expect(!model.screenText.contains("Invitations"))
    }

    @Test func anAdminApprovesOrDeniesARequest() {
        var model = Self.withInvitationAndRequest()
        model.press(.down)
        #expect(model.contacts.selectedItem == .request(Self.carolAsks))
        #expect(model.screenText.contains("carol asks to join #team · a approves, x denies"))
        #expect(model.press(.character("a")) == [.approveRequest(group: "team", user: "carol")])
        #expect(model.press(.character("x")) == [.revokeRequest(group: "team", user: "carol")])
        _ = model.handle(.result(.settled(group: "team", user: "carol", approved: true)))
        #expect(model.contacts.requests.isEmpty)
        #expect(model.screenText.contains("carol is in #team now"))
    }

    @Test func invitationsAndRequestsArriveLiveAndGoWhenSettledElsewhere() {
        var model = Fixture.loggedIn()
        _ = model.handle(.result(.contacts(ContactLists(groups: [Fixture.info("team", id: ConversationID(rawValue: 20))], decides: ["team"]))))
        let ops = ConversationID(rawValue: 30)
        _ = model.handle(Fixture.event(1, .memberInvited, ops, address: .group("ops"), user: Fixture.alice, by: "bob"))
        #expect(model.contacts.invites.map(\.group) == ["ops"])
        #expect(model.screenText.contains("bob invited you to #ops"))
        _ = model.handle(Fixture.event(2, .inviteRevoked, ops, address: .group("ops"), user: Fixture.alice, by: "bob"))
        #expect(model.contacts.invites.isEmpty)
        let team = ConversationID(rawValue: 20)
        _ = model.handle(Fixture.event(3, .joinRequested, team, address: .group("team"), user: Fixture.carol))
        #expect(model.contacts.requests.map(\.user) == ["carol"])
        #expect(model.screenText.contains("carol asks to join #team"))
        // Another admin approved it: carol joined.
        _ = model.handle(Fixture.event(4, .memberJoined, team, address: .group("team"), user: Fixture.carol, by: "bob", via: .approval))
        #expect(model.contacts.requests.isEmpty)
        // Requests to a group alice does not decide are not hers to show.
        _ = model.handle(Fixture.event(5, .joinRequested, ops, address: .group("ops"), user: Fixture.carol))
        #expect(model.contacts.requests.isEmpty)
    }

    @Test func joiningAGroupThatTakesRequestsWaitsAndTheApprovalArrivesLive() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .character("+"), .character("j"))
        model.type("team")
        #expect(model.press(.enter) == [.joinGroup("team")])
        let mine = GroupJoinRequest(group: "team", user: "alice", createdAt: Fixture.start)
        _ = model.handle(.result(.joinRequested(mine)))
        #expect(model.contacts.prompt == nil)
        #expect(model.screenText.contains("#team takes requests: yours waits for an admin"))
        model.press(.character("r"))  // any key clears the status line
        #expect(model.screenText.contains("you asked to join · an admin decides · x withdraws"))
        let team = ConversationID(rawValue: 20)
        let effects = model.handle(Fixture.event(1, .memberJoined, team, address: .group("team"), user: Fixture.alice, by: "bob", via: .approval))
        #expect(effects == [.loadContacts])
        #expect(model.contacts.myRequests.isEmpty)
        #expect(model.screenText.contains("your request was approved: you are in #team now"))
    }

    @Test func aGroupThatStartsTakingRequestsLoadsTheListsAgain() {
        var model = Fixture.loggedIn()
        var info = Fixture.info("ops")
        info.join = .approval
        let notice = Fixture.message(1, "bob changed the group info", type: .system)
        let effects = model.handle(Fixture.event(1, .conversationUpdated, message: notice, info: info, by: "bob"))
        #expect(effects.first == .loadContacts)
        #expect(model.handle(Fixture.event(2, .conversationUpdated, info: info, by: "bob")) == [])
    }

    @Test func aDeniedRequestSaysSo() {
        var model = Fixture.loggedIn()
        _ = model.handle(.result(.contacts(ContactLists(myRequests: [GroupJoinRequest(group: "team", user: "alice", createdAt: Fixture.start)]))))
        _ = model.handle(Fixture.event(1, .joinRequestRevoked, ConversationID(rawValue: 20), address: .group("team"), user: Fixture.alice, by: "bob"))
        #expect(model.contacts.myRequests.isEmpty)
        #expect(model.screenText.contains("your request to join #team was declined"))
    }

    @Test func aContactIsBlockedAndUnblockedFromItsInfoPage() {
        var model = Fixture.loggedIn()
        model.press(.character("2"))
        model.press(.enter)  // bob
        #expect(model.screenText.split(separator: "\n").last?.contains("b block") == true)
        #expect(model.press(.character("b")) == [])  // asks first
        #expect(model.confirmation == .block("bob"))
        #expect(model.press(.character("y")) == [.block("bob")])
        _ = model.handle(.result(.blockChanged("bob", blocked: true)))
        #expect(model.contacts.blocked == ["bob"])
        #expect(model.screenText.contains("bob is blocked"))
        model.press(.character("r"))
        #expect(model.screenText.contains("their messages to you are refused"))
        #expect(model.screenText.split(separator: "\n").last?.contains("b unblock") == true)
        #expect(model.press(.character("b")) == [.unblock("bob")])
        _ = model.handle(.result(.blockChanged("bob", blocked: false)))
        #expect(model.contacts.blocked.isEmpty)
        #expect(!model.screenText.contains("their messages to you are refused"))
    }
}
