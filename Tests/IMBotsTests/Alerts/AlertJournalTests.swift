import Foundation
@testable import IMBots
import IMProtocol
import Lifecycle
import Logging
import Synchronization
import Testing

/// What the alert bridge keeps in a bot's journal: stored deliveries made durable before
/// their senders hear so, dedupe checked and set in one step, and every record kind read
/// back as written.
@Suite("Alert state in the journal")
struct AlertJournalTests {
    func journal(_ store: any JournalStore, time: ManualTime = ManualTime()) async throws -> BotJournal {
        try await BotJournal(bot: "alerts", store: store, initialState: [:], writer: JournalWriter(time: time),
                             logger: Logger(label: "test", level: .error))
    }

    static func delivery(_ number: Int64, key: String = "k") -> WebhookDelivery {
        WebhookDelivery(number: number, path: "/hooks/alertmanager", format: .alertmanager, body: "{}", receivedAt: 1000,
                        rules: ["critical"], marks: [DedupeMark(rule: "critical", key: key, lifetime: 3_600_000)])
    }

    @Test("a record waited for is written and synced at once, not at the writer's next round")
    func durableAtOnce() async throws {
        let store = MemoryJournalStore()
        let journal = try await journal(store)
        let sequence = try #require(journal.record { _ in (.webhook(Self.delivery(1)), true) }?.sequence)
        // No writer runs: the wait itself writes and syncs.
        try await journal.waitUntilDurable(sequence)
        #expect(store.records.contains { $0.sequence == sequence })
        #expect(store.syncCount == 1)
        #expect(journal.syncedThrough >= sequence)
        // Already on disk: nothing more to do.
        try await journal.waitUntilDurable(sequence)
        #expect(store.syncCount == 1)
    }

    @Test("a store that cannot sync makes the wait throw, so the webhook is answered 503")
    func failingStore() async throws {
        let journal = try await journal(FailingStore())
        let sequence = try #require(journal.record { _ in (.webhook(Self.delivery(1)), true) }?.sequence)
        await #expect(throws: RunnerError.self) { try await journal.waitUntilDurable(sequence) }
        await journal.close()
        #expect(journal.record { _ in (.webhook(Self.delivery(2)), true) } == nil, "closed: refused, not dropped silently")
    }

    @Test("many copies of one notification recorded at once: the check and the record are one step, one is stored")
    func atomicAdmission() async throws {
        let journal = try await journal(MemoryJournalStore())
        let stored = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    let outcome = journal.record { state -> (JournalRecord.Change?, Bool) in
                        guard !(state.alerts.seen["critical"]?.contains("k", now: 1000) ?? false) else { return (nil, false) }
                        return (.webhook(Self.delivery(state.alerts.nextDelivery)), true)
                    }
                    return outcome?.verdict == true
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(stored == 1)
        #expect(journal.state.alerts.inbox.count == 1)
    }

    @Test("deliveries, steps and posted messages replay to the same state, through lines and snapshots")
    func roundTrip() async throws {
        var incident = Incident(opening: AlertFixtures.group([AlertFixtures.alert("db-7")]), now: 5)
        _ = incident.fold(AlertFixtures.group([AlertFixtures.alert("db-7")]), now: 5, hold: .zero, maxInstances: 10)
        let book = IncidentBookKey(rule: "critical", action: 0, conversation: "group:oncall").description
        let ref = IncidentRef(book: book, groupKey: incident.groupKey, part: .post)
        var change = AlertChange(delivery: 1)
        change.incidents = [IncidentUpdate(book: book, groupKey: incident.groupKey, incident: incident)]
        change.switches = ["watchdog": DeadMansSwitch(interval: .seconds(300), now: 7)]
        change.messages = [PendingMessage(incident: ref, to: .group("oncall"), text: "🔥 FIRING: DiskFull",
                                          clientMessageID: "b:h:abc", rule: "critical")]
        let records = [
            JournalRecord(sequence: 1, change: .webhook(Self.delivery(1))),
            JournalRecord(sequence: 2, change: .alerts(change)),
            JournalRecord(sequence: 3, change: .incidentPosted(IncidentPost(book: book, groupKey: incident.groupKey,
                                                                            messageID: MessageID(rawValue: 42)))),
            JournalRecord(sequence: 4, change: .handled(position: 9, state: [], messages: change.messages)),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var state = JournalState()
        for record in records {
            let line = try record.line(encoder: encoder)
            #expect(try JSONDecoder().decode(JournalRecord.self, from: line) == record)
            state.apply(record)
        }
        #expect(state.alerts.inbox.isEmpty, "the step processed the delivery")
        #expect(state.alerts.seen["critical"]?.contains("k", now: 1000) == true)
        #expect(state.alerts.messageID(of: ref) == MessageID(rawValue: 42))
        #expect(state.alerts.incident(messageID: MessageID(rawValue: 42))?.book == book)
        let snapshot = try JSONDecoder().decode(JournalState.self, from: try encoder.encode(state))
        #expect(snapshot == state)

        // A later step made from the incident as read before the post was recorded keeps its id.
        var stale = AlertChange()
        stale.incidents = [IncidentUpdate(book: book, groupKey: incident.groupKey, incident: incident)]
        state.apply(JournalRecord(sequence: 5, change: .alerts(stale)))
        #expect(state.alerts.messageID(of: ref) == MessageID(rawValue: 42))
    }
}

/// A store whose appends work and whose syncs fail (a disk gone bad).
private final class FailingStore: JournalStore {
    func load() async throws(RunnerError) -> JournalContents { JournalContents(snapshot: nil, records: [], warnings: []) }
    func append(_ records: [JournalRecord]) async throws(RunnerError) {}
    func sync() async throws(RunnerError) { throw RunnerError("fsync: input/output error") }
    func compact(to snapshot: JournalState) async throws(RunnerError) {}
    var sizes: (records: Int, snapshot: Int) { (0, 0) }
    func release() async {}
}
