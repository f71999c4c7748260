import Foundation
import IMProtocol
import TestSupport
import Testing

/// Issue 11, item 5: the sender edits their message; the sender or a group's admin
/// deletes one, and its text is gone for everyone, everywhere it was shown.
@Suite(.sharedServers) struct MessageChangeTests {

    private func path(_ address: String, _ message: Message) -> String {
        "/v1/conversations/\(address)/messages/\(message.id)"
    }

    @Test(arguments: TestStore.allCases) func theSenderEditsAndHistoryAndFeedsShowTheNewText(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("writer")
        let (bob, bobUser) = try await server.client.newUser("reader")
        let address = "user:\(bobUser.username)"
        let sent = try await alice.message(address, "teh first draft")
        #expect(sent.editedAt == nil)
        let bobCursor = try await bob.cursor()

        let answer = try await alice.send("PATCH", path(address, sent), json: EditMessageRequest(text: "the first draft"))
        expectStatus(answer, 200)
        let edited = try answer.decode(Message.self)
        #expect(edited.id == sent.id && edited.seq == sent.seq && edited.text == "the first draft")
        #expect(edited.editedAt != nil && edited.deletedAt == nil)

        let history = try await bob.history("user:\(aliceUser.username)")
        #expect(history.messages.first == edited)
        let events = try await bob.events(after: bobCursor).events
        #expect(events.map(\.type) == [.messageEdited])
        #expect(events.first?.message == edited)
        #expect(events.first?.conversation?.id == sent.conversationID)
        // The same text again changes nothing and tells nobody.
        let again = try await alice.send("PATCH", path(address, sent), json: EditMessageRequest(text: "the first draft"))
        #expect(try again.decode(Message.self) == edited)
        #expect(try await bob.events(after: bobCursor).events.count == 1)
    }

    /// Issue 11's test list: edit by anyone but the sender is refused, a group's owner
    /// included, and leaves the text as it was.
    @Test(arguments: TestStore.allCases) func anEditByAnyoneButTheSenderIsRefused(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (member, _) = try await server.client.newUser("member")
        let (outsider, _) = try await server.client.newUser("outsider")
        let (operatorClient, _) = try await server.createAccount(Names.unique("ops"), admin: true)
        let group = Names.unique("edits")
        try await owner.create(.group, group, join: .open)
        try await member.join(.group, group)
        let sent = try await member.message("group:\(group)", "mine")
        let notice = try #require(try await owner.history("group:\(group)").messages.first { $0.type == .system })

        let edit = EditMessageRequest(text: "theirs")
        expectError(try await owner.send("PATCH", path("group:\(group)", sent), json: edit), .forbidden, reason: "not_sender")
        // A server administrator moderates any group but writes nobody's words.
        expectError(
            try await operatorClient.send("PATCH", path("group:\(group)", sent), json: edit), .forbidden, reason: "not_member")
        expectError(
            try await outsider.send("PATCH", path("group:\(group)", sent), json: EditMessageRequest(text: "theirs")),
            .forbidden, reason: "not_member")
        expectError(
            try await server.client.send("PATCH", path("group:\(group)", sent), json: EditMessageRequest(text: "theirs")),
            .unauthorized)
        // A system notice has no sender to edit it.
        expectError(
            try await owner.send("PATCH", path("group:\(group)", notice), json: EditMessageRequest(text: "rewritten")),
            .forbidden, reason: "not_sender")
        #expect(try await owner.history("group:\(group)").messages.first { $0.id == sent.id }?.text == "mine")
    }

    @Test(arguments: TestStore.allCases) func editsAreCheckedLikeSends(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("checked")
        let (_, bobUser) = try await server.client.newUser("peer")
        let address = "user:\(bobUser.username)"
        let sent = try await alice.message(address, "short")
        expectError(try await alice.send("PATCH", path(address, sent), json: EditMessageRequest(text: "   ")), .invalidRequest, field: "text")
        expectError(
            try await alice.send("PATCH", path(address, sent), json: EditMessageRequest(text: String(repeating: "x", count: 4097))),
            .invalidRequest, field: "text")
        expectError(try await alice.send("PATCH", "/v1/conversations/\(address)/messages/abc", json: EditMessageRequest(text: "x")), .invalidRequest, field: "id")
        expectError(try await alice.send("PATCH", "/v1/conversations/\(address)/messages/999999999", json: EditMessageRequest(text: "x")), .notFound)
        // A message of another conversation is not found through this one.
        let elsewhere = try await alice.message("user:\(aliceUser.username)", "a note")
        expectError(try await alice.send("PATCH", path(address, elsewhere), json: EditMessageRequest(text: "x")), .notFound)
        // Deleted messages cannot be edited back.
        expectStatus(try await alice.send("DELETE", path(address, sent)), 200)
        expectError(try await alice.send("PATCH", path(address, sent), json: EditMessageRequest(text: "back")), .conflict)
    }

    /// Issue 11's test list: a deleted message's text is gone for everyone everywhere it
    /// was shown: history, the sessions list's last message, the feed event that carried
    /// it (read again from an old cursor), and a live poll gets `message_deleted`.
    @Test(arguments: TestStore.allCases) func deletingRemovesTheTextForEveryoneEverywhere(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("regret")
        let (bob, _) = try await server.client.newUser("witness")
        let (carol, _) = try await server.client.newUser("witness")
        let group = Names.unique("oops")
        try await alice.create(.group, group, join: .open)
        try await bob.join(.group, group)
        try await carol.join(.group, group)
        let bobBefore = try await bob.cursor()
        let secret = "my password is hunter2"
        let sent = try await alice.message("group:\(group)", secret)
        let seen = try await bob.events(after: bobBefore).events
        #expect(seen.contains { $0.message?.text == secret })
        let bobAfterSend = try await bob.events(after: bobBefore).cursor

        let parked = Task { try await carol.events(after: try await carol.cursor(), timeout: 30) }
        try await server.awaitParkedPolls(1)
        let answer = try await alice.send("DELETE", path("group:\(group)", sent))
        expectStatus(answer, 200)
        let deleted = try answer.decode(Message.self)
        #expect(deleted.text.isEmpty && deleted.deletedAt != nil && deleted.id == sent.id)
        let live = try await parked.value.events
        #expect(live.map(\.type) == [.messageDeleted])
        #expect(live.first?.by == aliceUser.username && live.first?.message?.text == "")

        for reader in [alice, bob, carol] {
            let history = try await reader.history("group:\(group)", limit: 200).messages
            #expect(!history.contains { $0.text.contains("hunter2") })
            #expect(history.first { $0.id == sent.id }?.deletedAt != nil)
            let row = try #require(try await reader.conversations().first { $0.address == .group(group) })
            #expect(row.lastMessage?.id == sent.id && row.lastMessage?.text == "")
            let single = try await reader.get("/v1/conversations/group:\(group)").decode(Conversation.self)
            #expect(single.lastMessage?.text == "")
        }
        // The feed event that carried the message reads without its text now.
        let replayed = try await bob.events(after: bobBefore, limit: 1000).events
        #expect(replayed.contains { $0.type == .message && $0.message?.id == sent.id && $0.message?.text == "" })
        #expect(!replayed.contains { $0.message?.text.contains("hunter2") == true })
        #expect(try await bob.events(after: bobAfterSend).events.map(\.type) == [.messageDeleted])
        // The sender's own deletion leaves no notice; a second one changes nothing.
        #expect(try await alice.history("group:\(group)").messages.first?.id == sent.id)
        #expect(try await alice.send("DELETE", path("group:\(group)", sent)).decode(Message.self) == deleted)
    }

    @Test(arguments: TestStore.allCases) func aGroupsOwnerDeletesAMembersMessageAndTheGroupIsToldWhoDid(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, ownerUser) = try await server.client.newUser("mod")
        let (member, memberUser) = try await server.client.newUser("spammer")
        let (other, _) = try await server.client.newUser("bystander")
        let group = Names.unique("moderated")
        try await owner.create(.group, group, join: .open)
        try await member.join(.group, group)
        try await other.join(.group, group)
        let spam = try await member.message("group:\(group)", "buy cheap watches")
        let own = try await other.message("group:\(group)", "hello all")

        // A plain member deletes nobody else's message.
        expectError(try await other.send("DELETE", path("group:\(group)", spam)), .forbidden, reason: "not_sender")
        expectError(try await member.send("DELETE", path("group:\(group)", own)), .forbidden, reason: "not_sender")
        let cursor = try await other.cursor()
        expectStatus(try await owner.send("DELETE", path("group:\(group)", spam)), 200)
        let events = try await other.events(after: cursor).events
        #expect(events.map(\.type) == [.messageDeleted, .message])
        #expect(events.first?.by == ownerUser.username)
        let notice = try #require(events.last?.message)
        #expect(notice.type == .system && notice.text == "\(ownerUser.username) deleted a message by \(memberUser.username)")
        #expect(try await member.history("group:\(group)").messages.first { $0.id == spam.id }?.text == "")
        // System notices stay.
        expectError(try await owner.send("DELETE", path("group:\(group)", notice)), .conflict)
    }

    @Test(arguments: TestStore.allCases) func aServerAdministratorDeletesInAnyGroupButNotInOthersDirectConversations(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (bot, _) = try await server.client.newUser("bot")
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (operatorClient, _) = try await server.createAccount(Names.unique("root"), admin: true)
        let group = Names.unique("private")
        try await bot.create(.group, group)
        let sent = try await bot.message("group:\(group)", "leaked token abc")
        expectStatus(try await operatorClient.send("DELETE", "/v1/conversations/group:\(group)/messages/\(sent.id)"), 200)
        #expect(try await bot.history("group:\(group)").messages.first { $0.id == sent.id }?.text == "")

        let direct = try await bot.message("user:\(aliceUser.username)", "psst")
        expectError(try await operatorClient.send("DELETE", "/v1/conversations/\(direct.conversationID)/messages/\(direct.id)"), .notFound)
        // In a one-to-one conversation only the sender deletes.
        expectError(
            try await alice.send("DELETE", "/v1/conversations/\(direct.conversationID)/messages/\(direct.id)"),
            .forbidden, reason: "not_sender")
    }

    /// Issue 25, §4: nobody acts above their role, deleting included. An admin deletes a
    /// member's message (and one of someone who left) but not the owner's nor another
    /// admin's; the owner deletes an admin's; a server administrator deletes the owner's.
    @Test(arguments: TestStore.allCases) func deletingAnothersMessageNeedsARoleAboveTheirs(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (admin, adminUser) = try await server.client.newUser("admin")
        let (peer, peerUser) = try await server.client.newUser("peer")
        let (member, _) = try await server.client.newUser("member")
        let (leaver, _) = try await server.client.newUser("leaver")
        let (operatorClient, _) = try await server.createAccount(Names.unique("ops"), admin: true)
        let group = Names.unique("ranks")
        let address = "group:\(group)"
        try await owner.create(.group, group, join: .open)
        for client in [admin, peer, member, leaver] { try await client.join(.group, group) }
        for name in [adminUser.username, peerUser.username] {
            expectStatus(
                try await owner.send(
                    "POST", "/v1/groups/\(group)/moderation", json: ModerationRequest(action: .promote, user: name)), 200)
        }
        let byOwner = try await owner.message(address, "the owner's words")
        let byPeer = try await peer.message(address, "another admin's words")
        let byMember = try await member.message(address, "a member's words")
        let byLeaver = try await leaver.message(address, "words of someone who left")
        try await leaver.leave(.group, group)

        expectError(try await admin.send("DELETE", path(address, byOwner)), .forbidden, reason: "outranked")
        expectError(try await admin.send("DELETE", path(address, byPeer)), .forbidden, reason: "outranked")
        expectError(try await member.send("DELETE", path(address, byPeer)), .forbidden, reason: "not_sender")
        let history = try await owner.history(address).messages
        #expect(history.first { $0.id == byOwner.id }?.text == "the owner's words")
        #expect(history.first { $0.id == byPeer.id }?.text == "another admin's words")

        expectStatus(try await admin.send("DELETE", path(address, byMember)), 200)
        expectStatus(try await admin.send("DELETE", path(address, byLeaver)), 200)
        expectStatus(try await owner.send("DELETE", path(address, byPeer)), 200)
        expectStatus(try await operatorClient.send("DELETE", path(address, byOwner)), 200)
        let after = try await owner.history(address).messages
        #expect([byOwner, byPeer, byMember, byLeaver].allSatisfy { sent in after.first { $0.id == sent.id }?.text == "" })
    }
}
