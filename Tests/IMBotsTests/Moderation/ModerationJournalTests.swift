import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Logging
import TestSupport
import Testing

/// Moderation's state in the bot's journal: strikes, cases and verifications survive a
/// restart, replay in order, and compact into the snapshot.
@Suite struct ModerationJournalTests {
    static let day: Int64 = 86_400_000

    /// A journal over `store` and the book on it, as a bot's start makes them.
    static func open(_ store: MemoryJournalStore) async throws -> (BotJournal, BotModeration) {
        let time = ManualTime()
        let logger = Logger(label: "test")
        let journal = try await BotJournal(bot: "testbot", store: store, initialState: [:],
                                           writer: JournalWriter(time: time), logger: logger)
        let client = IMClient(serverURL: "http://127.0.0.1:1", transport: FakeTransport { _ in TransportResponse(status: 500) })
        return (journal, BotModeration(bot: "testbot", client: client, journal: journal, time: time, logger: logger))
    }

    /// The records as they are written and read back (JSON lines).
    static func reread(_ store: MemoryJournalStore) throws -> MemoryJournalStore {
        let encoder = JSONEncoder()
        let lines = try store.records.map { try $0.line(encoder: encoder) }
        let records = try lines.map { try JSONDecoder().decode(JournalRecord.self, from: $0) }
        return MemoryJournalStore(snapshot: store.snapshot, records: records)
    }

    @Test func strikesAndCasesSurviveARestartAndKeepDecaying() async throws {
        let store = MemoryJournalStore()
        let (journal, first) = try await Self.open(store)
        _ = first.book.strike(counter: "spam", user: "mallory", points: 1, decay: Self.day, key: "k1", at: 0)
        _ = first.book.strike(counter: "spam", user: "mallory", points: 1, decay: Self.day, key: "k2", at: 1000)
        let opened = first.book.open(ModerationCase(number: 0, key: "k2", at: Timestamp(milliseconds: 1000), action: "mute",
                                                    detail: "10m", user: "mallory", conversation: "group:lobby",
                                                    rule: "spam", by: "testbot"))
        #expect(opened.number == 1)
        await journal.close()

        let (_, second) = try await Self.open(try Self.reread(store))
        #expect(second.book.points(counter: "spam", user: "mallory", decay: Self.day, at: 2000) == 2)
        // A day after the last strike one point has fallen off; two days, both.
        #expect(second.book.points(counter: "spam", user: "mallory", decay: Self.day, at: 1000 + Self.day) == 1)
        #expect(second.book.points(counter: "spam", user: "mallory", decay: Self.day, at: 1000 + 2 * Self.day) == 0)
        #expect(second.book.modCase(1)?.line == "#1 mute 10m @mallory in group:lobby, rule spam (undo: /undo 1)")
        // The same action after the restart finds its case; the next case is numbered on.
        #expect(second.book.open(opened).number == 1)
        #expect(second.book.open(ModerationCase(number: 0, key: "k3", at: Timestamp(milliseconds: 2000), action: "ban",
                                               rule: "spam", by: "testbot")).number == 2)
        // And the same strike again adds nothing.
        let again = second.book.strike(counter: "spam", user: "mallory", points: 1, decay: Self.day, key: "k2", at: 3000)
        #expect(again.points == 2)
    }

    @Test func aCompactedSnapshotHoldsTheModerationState() async throws {
        var state = JournalState()
        state.apply(JournalRecord(sequence: 1, change: .moderation(.strike(
            key: "spam/mallory", count: StrikeCount(points: 3, since: 5, lastKey: "k")))))
        state.apply(JournalRecord(sequence: 2, change: .moderation(.verification(
            key: "lobby/dave", pending: PendingVerification(group: "lobby", user: "dave", answer: "purple",
                                                            deadline: 99, rule: "verify", fail: "kick")))))
        state.apply(JournalRecord(sequence: 3, change: .moderation(.scheduled(rule: "5:13", at: 77))))
        let decoded = try JSONDecoder().decode(JournalState.self, from: JSONEncoder().encode(state))
        #expect(decoded == state)
        #expect(decoded.moderation.strikes["spam/mallory"]?.points == 3)
        #expect(decoded.moderation.verifications["lobby/dave"]?.deadline == 99)
    }

    @Test func newcomersWaitingAreBoundedAndTheEarliestDeadlinesGoFirst() {
        var state = ModerationState()
        let limit = ModerationState.verificationLimit
        for index in 0...limit {
            // The first newcomer has the latest deadline, the second the earliest.
            let deadline = index == 0 ? Int64.max : Int64(index)
            state.apply(.verification(key: "lobby/u\(index)", pending: PendingVerification(
                group: "lobby", user: "u\(index)", answer: "blue", deadline: deadline, rule: "verify", fail: "kick")))
        }
        #expect(state.verifications.count == limit)
        #expect(state.verifications["lobby/u1"] == nil)
        #expect(state.verifications["lobby/u0"] != nil)
        #expect(state.verifications["lobby/u\(limit)"] != nil)
    }
}
