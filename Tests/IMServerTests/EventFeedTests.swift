import Foundation
import IMProtocol
import TestSupport
import Testing

/// The feed's answers that never park: cursors, batches, limits, and what events carry.
@Suite(.sharedServers) struct EventFeedTests {
    @Test(arguments: TestStore.allCases) func pollWithoutACursorAnswersWithACursorAndNoEvents(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, _) = try await server.client.newUser("bob")
        // Events from before the first poll are not replayed.
        try await bob.message("user:\(aliceUser.username)", "before")
        let answer = try await alice.poll(nil, timeout: 30)
        expectStatus(answer, 200)
        let batch = try answer.decode(EventBatch.self)
        #expect(batch.events.isEmpty)
        #expect(!batch.cursor.isEmpty)
        #expect(try await alice.events(after: batch.cursor).events.isEmpty)
    }

    @Test(arguments: TestStore.allCases) func pollWithACursorReturnsNewerEventsInOrderAndTheNextCursor(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, _) = try await server.client.newUser("bob")
        let cursor = try await alice.cursor()
        for index in 1...3 { try await bob.message("user:\(aliceUser.username)", "m\(index)") }

        let batch = try await alice.events(after: cursor, timeout: 30)
        #expect(batch.events.map(\.type) == [.message, .message, .message])
        #expect(batch.events.compactMap(\.message?.text) == ["m1", "m2", "m3"])
        let positions = batch.events.map(\.position)
        #expect(positions == positions.sorted() && Set(positions).count == 3)
        #expect(batch.cursor != cursor)

        // Nothing newer: timeout 0 answers at once, empty, with the same cursor.
        let empty = try await alice.events(after: batch.cursor, timeout: 0)
        #expect(empty.events.isEmpty)
        #expect(empty.cursor == batch.cursor)
    }

    @Test(arguments: TestStore.allCases) func aCursorCanBeReusedSoDeliveryIsAtLeastOnce(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, _) = try await server.client.newUser("bob")
        let cursor = try await alice.cursor()
        try await bob.message("user:\(aliceUser.username)", "again")
        let first = try await alice.events(after: cursor)
        let second = try await alice.events(after: cursor)
        #expect(first == second)
        #expect(first.events.count == 1)
    }

    @Test(arguments: TestStore.allCases) func limitCapsABatchAndTheNextPollContinuesWhereItStopped(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, _) = try await server.client.newUser("bob")
        var cursor = try await alice.cursor()
        for index in 1...5 { try await bob.message("user:\(aliceUser.username)", "m\(index)") }
        var texts: [[String]] = []
        for _ in 0..<3 {
            let batch = try await alice.events(after: cursor, limit: 2)
            texts.append(batch.events.compactMap(\.message?.text))
            cursor = batch.cursor
        }
        #expect(texts == [["m1", "m2"], ["m3", "m4"], ["m5"]])
    }

    @Test(arguments: TestStore.allCases) func directMessageEventsNameTheOtherUserOnEachSide(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, bobUser) = try await server.client.newUser("bob")
        let aliceCursor = try await alice.cursor()
        let bobCursor = try await bob.cursor()
        let sent = try await alice.message("user:\(bobUser.username)", "hi bob")
        let reply = try await bob.message("user:\(aliceUser.username)", "hi alice")

        let aliceEvents = try await alice.events(after: aliceCursor).events
        let bobEvents = try await bob.events(after: bobCursor).events
        #expect(aliceEvents.compactMap(\.message?.id) == [sent.id, reply.id])
        #expect(bobEvents.compactMap(\.message?.id) == [sent.id, reply.id])
        // Each side files the conversation under the other user, never under itself.
        #expect(aliceEvents.map(\.conversation?.address) == [.user(bobUser.username), .user(bobUser.username)])
        #expect(bobEvents.map(\.conversation?.address) == [.user(aliceUser.username), .user(aliceUser.username)])
        #expect(aliceEvents.allSatisfy { $0.conversation?.kind == .direct && $0.conversation?.id == sent.conversationID })
        #expect(bobEvents.first?.message?.sender == aliceUser.username)
    }

    @Test(arguments: TestStore.allCases) func membershipAndInfoEventsCarryTheirSystemNotice(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, aliceUser) = try await server.client.newUser("alice")
        let (bob, bobUser) = try await server.client.newUser("bob")
        let group = Names.unique("g")
        expectStatus(
            try await alice.send(
                "POST", "/v1/groups", json: CreateConversationRequest(name: group, join: .open, infoEditableBy: .members)),
            201)
        let cursor = try await alice.cursor()

        try await bob.join(.group, group)
        expectStatus(try await bob.send("PATCH", "/v1/groups/\(group)", json: ConversationInfoUpdate(title: "New Title")), 200)
        try await bob.leave(.group, group)

        let events = try await alice.events(after: cursor).events
        #expect(events.map(\.type) == [.memberJoined, .conversationUpdated, .memberLeft])
        #expect(events.allSatisfy { $0.conversation?.address == .group(group) })
        #expect(events.allSatisfy { $0.message?.type == .system })
        #expect(events.map { $0.message?.text } == [
            "\(bobUser.username) joined the group", "\(bobUser.username) changed the group info",
            "\(bobUser.username) left the group",
        ])
        #expect(events[0].user?.id == bobUser.id)
        #expect(events[1].info?.title == "New Title")
        #expect(events[1].by == bobUser.username)
        #expect(events[2].user?.id == bobUser.id)

        // The notices are in the history too, and are not unread.
        let history = try await alice.history("group:\(group)").messages
        #expect(history.prefix(3).map(\.type) == [.system, .system, .system])
        #expect(history.last?.text == "\(aliceUser.username) created the group")
        #expect(try await alice.get("/v1/conversations/group:\(group)").decode(Conversation.self).unread == 0)
    }

    @Test(arguments: TestStore.allCases) func roomNoticesSayEnteredAndLeft(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("alice")
        let (bob, bobUser) = try await server.client.newUser("bob")
        let room = Names.unique("r")
        try await alice.create(.room, room)
        let cursor = try await alice.cursor()
        try await bob.join(.room, room)
        try await bob.leave(.room, room)
        let events = try await alice.events(after: cursor).events
        #expect(events.map(\.type) == [.memberJoined, .memberLeft])
        #expect(events.map { $0.message?.text } == [
            "\(bobUser.username) entered the room", "\(bobUser.username) left the room",
        ])
    }

    @Test(arguments: TestStore.allCases) func roomMessagesReachOnlyThosePresent(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("alice")
        let (bob, _) = try await server.client.newUser("bob")
        let (carol, _) = try await server.client.newUser("carol")
        let room = Names.unique("r")
        try await alice.create(.room, room)
        try await bob.join(.room, room)
        try await carol.join(.room, room)
        try await carol.leave(.room, room)
        let bobCursor = try await bob.cursor()
        let carolCursor = try await carol.cursor()

        let sent = try await alice.message("room:\(room)", "only for those here")

        #expect(try await bob.events(after: bobCursor).events.compactMap(\.message?.id) == [sent.id])
        // The send is answered after commit, so carol's feed already holds all it ever will.
        #expect(try await carol.events(after: carolCursor).events.isEmpty)
        expectError(try await carol.get("/v1/conversations/room:\(room)/messages"), .forbidden, reason: "not_present")
    }

    @Test(arguments: TestStore.allCases) func profileUpdatesReachTheUsersOwnFeed(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("alice")
        let cursor = try await alice.cursor()
        expectStatus(try await alice.send("PATCH", "/v1/me", json: ProfileUpdate(signature: "busy")), 200)
        let events = try await alice.events(after: cursor).events
        #expect(events.map(\.type) == [.profileUpdated])
        #expect(events.first?.user?.signature == "busy")
    }

    @Test(arguments: TestStore.allCases) func anotherUsersCursorIsExpired(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("alice")
        let (carol, _) = try await server.client.newUser("carol")
        let aliceCursor = try await alice.cursor()
        expectError(try await carol.poll(aliceCursor), .cursorExpired)
    }

    @Test(arguments: TestStore.allCases) func aCursorFromAnotherDataFolderIsExpiredEvenForTheSameUserID(_ store: TestStore) async throws {
        try await withServer(store: store) { first in
            try await withServer(store: store) { second in
                let (here, hereUser) = try await first.client.register("alice")
                let (there, thereUser) = try await second.client.register("alice")
                try #require(hereUser.id == thereUser.id)
                let foreign = try await there.cursor()
                expectStatus(try await there.poll(foreign), 200)
                expectError(try await here.poll(foreign), .cursorExpired)
            }
        }
    }

    @Test(arguments: TestStore.allCases) func aCursorFromTheFutureIsExpired(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("alice")
        let cursor = try await alice.cursor()
        var parts = cursor.split(separator: ".").map(String.init)
        try #require(parts.count == 4)
        parts[3] = String(Int64.max / 2, radix: 36)
        expectError(try await alice.poll(parts.joined(separator: ".")), .cursorExpired)
    }

    @Test(arguments: ["garbage", "v1", "v1.abc.1", "v1.abc.1.1.1", "v1.abc.1.%21", "v2.abc.1.1", "v1..1.1", "v1.abc.-1.1", "v1.abc.1.-1", "%00"])
    func aCursorThatIsNotOneIsInvalid(_ cursor: String) async throws {
        let server = try SharedServer.current(.sqlite)
        let (alice, _) = try await server.client.newUser("alice")
        expectError(try await alice.poll(cursor), .invalidRequest, field: "cursor")
    }
}
