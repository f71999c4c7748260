import Foundation
import IMClient
import MatrixClient
import Testing
import TestSupport

/// The bot's Matrix feed against Synapse: it begins at the present, keeps its `since`
/// token in a `CursorStore` only once a batch is handled, joins invitations as its policy
/// says, and tells of encrypted rooms once.
@Suite("Matrix feed")
struct MatrixFeedTests {
    private let quick = MatrixFeed.Options(pollTimeout: .seconds(2))

    /// Batches of `feed` until `bodies` have all been seen; the texts seen, in order.
    private func collect(_ feed: MatrixFeed, until bodies: Set<String>, in roomID: String) async throws -> [String] {
        try await withHangGuard("the feed bringing \(bodies.sorted())", hangGuard: .seconds(60)) {
            var seen: [String] = []
            while !bodies.isSubset(of: Set(seen)) {
                let batch = try await feed.next()
                seen += batch.events.filter { $0.roomID == roomID }.compactMap(\.event.body)
            }
            return seen
        }
    }

    @Test func aNewFeedBeginsNowAndARestartNeitherRepeatsNorSkips() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let bot = try await server.newClient("bot")
        let roomID = try await alice.createRoom(NewRoom(invite: [try bot.currentUser()]))
        try await bot.join(.id(roomID))
        try await alice.sendText("history", to: roomID, transactionID: "h")

        let store = MemoryCursorStore()
        let first = MatrixFeed(client: bot, cursor: store, options: quick)
        try await first.start()
        #expect(store.cursor != nil)  // the beginning is saved before anything is handed out
        try await alice.sendText("one", to: roomID, transactionID: "1")
        try await alice.sendText("two", to: roomID, transactionID: "2")
        let seen = try await collect(first, until: ["one", "two"], in: roomID)
        #expect(!seen.contains("history"))
        #expect(seen.filter { $0 == "one" }.count == 1)

        // A crash now: the last batch was handed out but not confirmed by asking for the
        // next, so a restart sees it again (the runner's journal drops such repeats).
        let afterCrash = MatrixFeed(client: bot, cursor: store, options: quick)
        try await alice.sendText("three", to: roomID, transactionID: "3")
        let again = try await collect(afterCrash, until: ["three"], in: roomID)
        #expect(again.last == "three")
        #expect(!again.contains("history"))

        // Asking for the next batch confirms "three": a restart after that does not repeat it.
        try await alice.sendText("four", to: roomID, transactionID: "4")
        let confirmed = try await collect(afterCrash, until: ["four"], in: roomID)
        #expect(!confirmed.contains("three"))
        try await alice.sendText("five", to: roomID, transactionID: "5")
        _ = try await collect(afterCrash, until: ["five"], in: roomID)
        let restarted = MatrixFeed(client: bot, cursor: store, options: quick)
        try await alice.sendText("six", to: roomID, transactionID: "6")
        let later = try await collect(restarted, until: ["six"], in: roomID)
        #expect(later == ["five", "six"])  // five's batch was handed out last, not confirmed
    }

    /// Batches of `feed` until `done` holds for them all; every batch.
    private func batches(_ feed: MatrixFeed, _ what: String,
                         until done: @escaping @Sendable ([MatrixFeedBatch]) -> Bool) async throws -> [MatrixFeedBatch] {
        try await withHangGuard(what, hangGuard: .seconds(60)) {
            var all: [MatrixFeedBatch] = []
            while !done(all) { all.append(try await feed.next()) }
            return all
        }
    }

    @Test func invitationsAreJoinedOrDeclinedAsThePolicySays() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let mallory = try await server.newClient("mallory")
        let bot = try await server.newClient("bot")
        let botID = try bot.currentUser()
        let aliceID = try alice.currentUser().rawValue
        let feed = MatrixFeed(client: bot, cursor: MemoryCursorStore(), options: MatrixFeed.Options(
            pollTimeout: .seconds(2), acceptInvite: { _, inviter in inviter == aliceID }))
        try await feed.start()

        let welcome = try await alice.createRoom(NewRoom(invite: [botID]))
        let stranger = try await mallory.createRoom(NewRoom(invite: [botID]))
        let all = try await batches(feed, "both invitations") { all in
            all.contains { $0.joined.contains(welcome) } && all.contains { $0.declined.contains(stranger) }
        }
        #expect(all.flatMap(\.joined) == [welcome])
        #expect(all.flatMap(\.declined) == [stranger])
        let membership = try await alice.stateContent(of: welcome, type: "m.room.member", stateKey: botID.rawValue)
        #expect(membership["membership"]?.string == "join")
    }

    @Test func anEncryptedRoomIsToldOnce() async throws {
        let server = try await SynapseTestServer.shared()
        let alice = try await server.newClient("alice")
        let bot = try await server.newClient("bot")
        let roomID = try await alice.createRoom(NewRoom(invite: [try bot.currentUser()]))
        try await bot.join(.id(roomID))
        let feed = MatrixFeed(client: bot, cursor: MemoryCursorStore(), options: quick)
        try await feed.start()

        try await alice.setState(of: roomID, type: "m.room.encryption",
                                 content: .object(["algorithm": .string("m.megolm.v1.aes-sha2")]))
        try await alice.sendText("after encryption", to: roomID, transactionID: "e1")
        _ = try await batches(feed, "the encrypted room told") { $0.contains { $0.encrypted.contains(roomID) } }
        try await alice.sendText("more", to: roomID, transactionID: "e2")
        let later = try await batches(feed, "a later message") { all in
            all.contains { $0.events.contains { $0.event.body == "more" } }
        }
        #expect(!later.contains { $0.encrypted.contains(roomID) })

        // A new feed of the same bot finds the room encrypted at its start and tells it once.
        // (The homeserver may answer its first sync from a snapshot of a moment ago; the
        // batches after it bring what changed since, so the room is told in one of them.)
        let fresh = MatrixFeed(client: bot, cursor: MemoryCursorStore(), options: quick)
        try await fresh.start()
        try await alice.sendText("to the fresh feed", to: roomID, transactionID: "e3")
        let told = try await batches(fresh, "the fresh feed telling the encrypted room") { all in
            all.contains { $0.encrypted.contains(roomID) } && all.contains { $0.events.contains { $0.event.body == "to the fresh feed" } }
        }
        #expect(told.flatMap(\.encrypted) == [roomID])
    }
}
