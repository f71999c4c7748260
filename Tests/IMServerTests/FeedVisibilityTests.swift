import Foundation
import IMProtocol
import TestSupport
import Testing

/// Issue 25, §4 "Removed members read later edits": a member reads a message's text only
/// as it was while they were in the conversation. Tried from outside: a kicked member
/// replaying an old cursor, a room newcomer polling while an earlier message is edited.
@Suite(.sharedServers) struct FeedVisibilityTests {
    private func path(_ address: String, _ message: Message) -> String {
        "/v1/conversations/\(address)/messages/\(message.id)"
    }

    private func edit(_ client: TestClient, _ address: String, _ message: Message, to text: String) async throws {
        expectStatus(try await client.send("PATCH", path(address, message), json: EditMessageRequest(text: text)), 200)
    }

    @Test(arguments: TestStore.allCases)
    func aKickedMemberReplayingAnOldCursorReadsTheTextAsItWasWhenTheyLeft(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (kicked, kickedUser) = try await server.client.newUser("kicked")
        let (stayer, _) = try await server.client.newUser("stayer")
        let group = Names.unique("plans")
        let address = "group:\(group)"
        try await owner.create(.group, group, join: .open)
        try await kicked.join(.group, group)
        try await stayer.join(.group, group)
        let before = try await kicked.cursor()
        let stayerBefore = try await stayer.cursor()

        let plan = try await owner.message(address, "meet at nine")
        try await edit(owner, address, plan, to: "meet at ten")  // while the member is there
        expectStatus(
            try await owner.send(
                "POST", "/v1/groups/\(group)/moderation", json: ModerationRequest(action: .kick, user: kickedUser.username)),
            200)
        try await edit(owner, address, plan, to: "the vault code is 4711")
        try await edit(owner, address, plan, to: "the vault code is 4711, bring bags")
        _ = try await owner.message(address, "said after the kick")

        // Replayed from before, as often as the member likes: the text they knew, never the later ones.
        for _ in 0..<2 {
            let replay = try await kicked.events(after: before, limit: 1000).events
            let texts = replay.compactMap { $0.message?.id == plan.id ? $0.message?.text : nil }
            #expect(replay.map(\.type).contains(.memberKicked))
            #expect(texts == ["meet at ten", "meet at ten"], "\(replay.map(\.type))")
            #expect(replay.allSatisfy { $0.message?.text.contains("4711") != true })
            #expect(replay.allSatisfy { $0.message?.text != "said after the kick" })
            #expect(replay.first { $0.message?.id == plan.id }?.message?.editedAt != nil)
        }
        // Those still there read the newest text.
        let current = try await stayer.events(after: stayerBefore, limit: 1000).events.filter { $0.message?.id == plan.id }
        #expect(current.map(\.message?.text) == Array(repeating: "the vault code is 4711, bring bags", count: 4))

        // A deletion takes the text from everyone, those who left included.
        expectStatus(try await owner.send("DELETE", path(address, plan)), 200)
        let afterDeletion = try await kicked.events(after: before, limit: 1000).events
        #expect(afterDeletion.compactMap { $0.message?.id == plan.id ? $0.message?.text : nil } == ["", ""])
    }

    @Test(arguments: TestStore.allCases)
    func someoneWhoLeftAndCameBackReadsEachStretchAsItWas(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (member, _) = try await server.client.newUser("member")
        let group = Names.unique("again")
        let address = "group:\(group)"
        try await owner.create(.group, group, join: .open)
        try await member.join(.group, group)
        let before = try await member.cursor()
        let note = try await owner.message(address, "first words")
        try await member.leave(.group, group)
        try await edit(owner, address, note, to: "second words")
        try await member.join(.group, group)
        try await edit(owner, address, note, to: "third words")

        let events = try await member.events(after: before, limit: 1000).events
        // The message as it was when they left; then, back in, the edit they saw made.
        #expect(events.compactMap { $0.message?.id == note.id ? $0.message?.text : nil } == ["first words", "third words"])
        // And as a member again, its history shows the newest text.
        #expect(try await member.history(address).messages.first { $0.id == note.id }?.text == "third words")
    }

    @Test(arguments: TestStore.allCases)
    func aRoomNewcomerDoesNotReadAnEarlierMessageThroughItsEditOrDeletion(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("alice")
        let (early, _) = try await server.client.newUser("early")
        let (newcomer, _) = try await server.client.newUser("newcomer")
        let room = Names.unique("lobby")
        let address = "room:\(room)"
        try await alice.create(.room, room)
        try await early.join(.room, room)
        let earlyCursor = try await early.cursor()
        let secret = try await alice.message(address, "said before the newcomer came")
        try await newcomer.join(.room, room)
        let cursor = try await newcomer.cursor()

        // A poll parked before the edit is answered with the next message alone.
        async let parked = newcomer.poll(cursor, timeout: 30)
        try await server.awaitParkedPolls(1)
        try await edit(alice, address, secret, to: "said before the newcomer came, and edited")
        expectStatus(try await alice.send("DELETE", path(address, secret)), 200)
        let welcome = try await alice.message(address, "welcome")
        let batch = try await parked.decode(EventBatch.self)
        #expect(batch.events.map(\.type) == [.message] && batch.events.first?.message?.id == welcome.id)

        let events = try await newcomer.events(after: cursor, limit: 1000).events
        #expect(events.allSatisfy { $0.message?.id != secret.id }, "\(events.map(\.type))")
        #expect(events.compactMap(\.message?.id) == [welcome.id])
        #expect(try await newcomer.history(address).messages.allSatisfy { $0.id != secret.id })
        // Whoever was there hears of both.
        let seen = try await early.events(after: earlyCursor, limit: 1000).events.filter { $0.message?.id == secret.id }
        #expect(seen.map(\.type) == [.message, .messageEdited, .messageDeleted])
    }
}
