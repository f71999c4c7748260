import Foundation
@testable import IMBots
import IMProtocol
import Lifecycle
import Logging
import Templates
import TestSupport
import Synchronization
import Testing

/// A bot's journal: one write path, records replayed over the last snapshot, compaction
/// that a crash cannot undo, a torn last line dropped, nothing written after the lock is
/// released.
@Suite(.timeLimit(.minutes(1))) struct JournalTests {
    let folder = TestServer.temporaryDirectory() + "/bot"
    let logs = LogWatch()
    var logger: Logger { Logger(label: "test", level: .debug, sink: logs) }

    func open(_ writer: JournalWriter = JournalWriter(time: ManualTime())) async throws -> (BotJournal, FileJournalStore) {
        let store = try FileJournalStore(folder: folder, bot: "bot")
        return (try await BotJournal(bot: "bot", store: store, initialState: ["count": 0], writer: writer,
                                     logger: logger), store)
    }

    /// Runs `body` while a writer writes `journal`, then closes the journal as a stopping
    /// bot does.
    func writing(_ journal: BotJournal, _ body: () async throws -> Void) async throws {
        try await body()
        await journal.close()
    }

    static func message(_ id: String) -> PendingMessage {
        PendingMessage(OutgoingMessage(to: .user("alice"), text: "hi", clientMessageID: id, rule: "r", action: .reply),
                       position: 1)
    }

    /// Records the changes of a few events, then stops the journal (which writes them).
    func recordSome(_ journal: BotJournal) async throws {
        try await writing(journal) {
            journal.record(.handled(position: 5, state: [.add(path: ["count"], amount: 2)],
                                          messages: [Self.message("m1"), Self.message("m2")]))
            journal.record(.cursor("c1"))
            journal.record(.done(clientMessageID: "m1"))
        }
    }

    @Test func whatWasRecordedIsThereAfterARestart() async throws {
        let (journal, _) = try await open()
        try await recordSome(journal)
        let (again, _) = try await open()
        let state = again.state
        #expect(state.cursor == "c1")
        #expect(state.handledThrough == 5)
        #expect(state.variables["count"] == .int(2))
        #expect(state.outbox.map(\.clientMessageID) == ["m2"])
        #expect(again.isNew(5) == false)
        #expect(again.isNew(6))
    }

    @Test func aTornLastLineIsDroppedAndLaterRecordsStayReadable() async throws {
        let (journal, store) = try await open()
        try await recordSome(journal)
        // The process died in the middle of a write.
        let handle = try #require(FileHandle(forWritingAtPath: store.journalPath))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"seq":4,"cursor":"c2"#.utf8))
        try handle.close()

        let (second, _) = try await open()
        #expect(second.state.cursor == "c1")
        #expect(logs.contains("an incomplete last record was dropped"))
        try await writing(second) { second.record(.cursor("c3")) }
        let (third, _) = try await open()
        #expect(third.state.cursor == "c3")
    }

    @Test func recordsAreCompactedIntoTheSnapshotOnceTheyOutgrowIt() async throws {
        let (journal, store) = try await open()
        let big = String(repeating: "x", count: 1000)
        try await writing(journal) {
            for index in 0..<400 {
                journal.record(.handled(position: Int64(index + 1), state: [.set(path: ["last"], value: .string(big))],
                                              messages: []))
            }
        }
        // 400 records of about 1 KB passed the 256 KiB mark: the snapshot holds them.
        #expect(FileManager.default.fileExists(atPath: store.snapshotPath))
        #expect(store.sizes.records < BotJournal.compactionBytes)
        let (again, _) = try await open()
        #expect(again.state.handledThrough == 400)
        #expect(again.state.variables["last"] == .string(big))
    }

    @Test func aCompactionCutShortIsHarmless() async throws {
        let (journal, store) = try await open()
        try await recordSome(journal)
        // The snapshot was written but the journal not yet emptied: its records are older.
        let (reading, _) = try await open()
        var snapshot = reading.state
        snapshot.variables["count"] = .int(40)
        await reading.abandon()
        try LocalFiles.replace(store.snapshotPath, with: try JSONEncoder().encode(snapshot))
        let (again, _) = try await open()
        // Replaying `add 2` again would give 42.
        #expect(again.state.variables["count"] == .int(40))
    }

    @Test func nothingIsWrittenAfterTheJournalStopped() async throws {
        let (journal, store) = try await open()
        try await recordSome(journal)
        let before = try Data(contentsOf: URL(fileURLWithPath: store.journalPath))
        journal.record(.cursor("late"))
        #expect(logs.contains("a change came after the bot stopped"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.journalPath)) == before)
        await #expect(throws: RunnerError.self) { try await store.append([JournalRecord(sequence: 99, change: .resync)]) }
        // And the lock is free for the next runner.
        _ = try await open()
    }

    @Test func theWriterWritesAsRecordsComeAndSyncsAtMostFourTimesASecond() async throws {
        let time = ManualTime()
        let store = MemoryJournalStore()
        let writer = JournalWriter(time: time)
        let journal = try await BotJournal(bot: "bot", store: store, initialState: [:], writer: writer, logger: logger)
        try await withService(writer) {
            for index in 1...50 { journal.record(.cursor("c\(index)")) }
            // Fifty cursors in one batch are written as the last one.
            try await eventually("the records were appended") { store.records.map(\.change) == [.cursor("c50")] }
            // The writer now waits on the clock before syncing.
            await time.waitForSleepers(1)
            #expect(store.syncCount == 0)
            time.advance(by: BotJournal.syncInterval)
            try await eventually("a sync") { store.syncCount == 1 }
        }
        await journal.close()
        #expect(store.isReleased)
    }

    /// A fresh bot's feed begins where its first poll found the present: that cursor is
    /// stored and synced before the stream goes on (a runner taking over after a crash
    /// would otherwise begin at a later present and miss what came in between), while
    /// later cursors wait for the writer as every record does.
    @Test func aFreshBotsFirstCursorIsDurableBeforeTheFeedGoesOn() async throws {
        let store = MemoryJournalStore()
        let writer = JournalWriter(time: ManualTime())
        let journal = try await BotJournal(bot: "bot", store: store, initialState: [:], writer: writer, logger: logger)
        let retries = Mutex(0)
        let cursors = JournalCursorStore(journal: journal, resumes: true, sleep: { _ in retries.withLock { $0 += 1 } })
        // The writer is not running: only the save itself can have written and synced.
        store.fail(next: 1)
        try await cursors.save("c1")
        #expect(store.records.map(\.change) == [.cursor("c1")])
        #expect(store.syncCount == 1)
        #expect(retries.withLock { $0 } == 1, "one failed write, waited out and written again")
        #expect(logs.contains("the store is out of reach"))

        try await cursors.save("c2")
        #expect(store.records.map(\.change) == [.cursor("c1")], "a later cursor is the writer's")
        #expect(journal.state.cursor == "c2")

        // After the server forgot the cursor, the next one is a first cursor again.
        journal.record(.resync)
        try await cursors.save("c3")
        #expect(store.records.map(\.change) == [.cursor("c1"), .resync, .cursor("c3")])
        #expect(store.syncCount == 2)
        await journal.close()
    }

    @Test func aRecordOfAKindThisVersionDoesNotKnowStopsTheStart() async throws {
        let (journal, store) = try await open()
        try await recordSome(journal)
        let handle = try #require(FileHandle(forWritingAtPath: store.journalPath))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"seq":9,"strike":{"user":"x"}}"#.utf8 + [0x0A]))
        try handle.close()
        await #expect(throws: RunnerError.self) { _ = try await open() }
    }

    @Test func aStateFileOfEarlierVersionsIsRead() async throws {
        try LocalFiles.makePrivateFolder(folder)
        try Data("""
            {"avatar_hash":"abc","cursor":"c9","finished_above":[],"handled_through":12,\
            "outbox":[{"client_msg_id":"b:echo:12:echo:0","position":12,"rule":"echo","action":"reply",\
            "text":"echo: hi","to":"user:alice"}],"variables":{"tickets":3}}
            """.utf8).write(to: URL(fileURLWithPath: folder + "/state.json"))
        let (journal, _) = try await open()
        let state = journal.state
        #expect(state.cursor == "c9" && state.handledThrough == 12 && state.avatarHash == "abc")
        #expect(state.variables["tickets"] == .int(3))
        #expect(state.outbox.first?.sheddable == true)
    }
}

/// The journal's hand-written lines say what `Codable` says.
@Suite struct JournalLineTests {
    @Test func handWrittenLinesReadBackAsTheSameRecordsAndTheSameText() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let message = PendingMessage(
            OutgoingMessage(to: .group("ops"), text: "He said \"hi\" / bye\n\tüñí 🔥 \u{1}", clientMessageID: "b:x:1:r:0",
                            replyTo: MessageID(rawValue: 42), rule: "r", action: .reply),
            position: 7)
        let alert = PendingMessage(
            OutgoingMessage(to: .user("bob"), text: "disk", clientMessageID: "hook:1", rule: "inbox", action: .send),
            position: 0, sheddable: false)
        let records: [JournalRecord] = [
            JournalRecord(sequence: 1, change: .cursor("v1.abc.\"2")),
            JournalRecord(sequence: 2, change: .done(clientMessageID: "b:x:1:r:0")),
            JournalRecord(sequence: 3, change: .handled(position: 7, state: [], messages: [message, alert])),
            JournalRecord(sequence: 4, change: .handled(position: 8, state: [], messages: [])),
            JournalRecord(sequence: 5, change: .handled(position: 9, state: [.add(path: ["n"], amount: 1)], messages: [])),
            JournalRecord(sequence: 6, change: .handled(position: 10, state: [], messages: [alert])),
        ]
        for record in records {
            let line = try record.line(encoder: encoder)
            #expect(line.last == 0x0A)
            #expect(try JSONDecoder().decode(JournalRecord.self, from: line.dropLast()) == record)
            if !record.isControlText {
                #expect(String(decoding: line.dropLast(), as: UTF8.self)
                        == String(decoding: try encoder.encode(record), as: UTF8.self))
            }
        }
    }

    @Test func aMatrixBotsDirectChatsAndSlowModesReplayAndSurviveTheSnapshot() throws {
        let records: [JournalRecord] = [
            JournalRecord(sequence: 1, change: .matrix(.direct("@nina:example.org", "!dm:example.org"))),
            JournalRecord(sequence: 2, change: .matrix(.slowMode("lobby", seconds: 30))),
            JournalRecord(sequence: 3, change: .matrix(.slowMode("mods", seconds: 10))),
            JournalRecord(sequence: 4, change: .matrix(.slowMode("mods", seconds: 0))),
        ]
        var state = JournalState()
        for record in records {
            let line = try record.line(encoder: JSONEncoder())
            #expect(try JSONDecoder().decode(JournalRecord.self, from: line.dropLast()) == record)
            state.apply(record)
        }
        #expect(state.matrix.direct == ["@nina:example.org": "!dm:example.org"])
        #expect(state.matrix.slowMode == ["lobby": 30])
        let snapshot = try JSONDecoder().decode(JournalState.self, from: JSONEncoder().encode(state))
        #expect(snapshot == state)
    }
}

extension JournalRecord {
    /// Whether the record holds a control character other than \n, \r and \t, which the
    /// two writers escape differently (both valid JSON).
    var isControlText: Bool {
        if case .handled(_, _, let messages) = change {
            return messages.contains { $0.text.unicodeScalars.contains { $0.value < 0x20 && !"\n\r\t".unicodeScalars.contains($0) } }
        }
        return false
    }
}

/// A batch is shortened before it is written without changing what it replays to.
@Suite struct JournalCoalescingTests {
    static func message(_ id: String) -> PendingMessage {
        PendingMessage(OutgoingMessage(to: .user("alice"), text: "hi", clientMessageID: id, rule: "r", action: .reply),
                       position: 1)
    }

    static func replay(_ records: [JournalRecord], over start: JournalState = JournalState()) -> JournalState {
        var state = start
        for record in records { state.apply(record) }
        return state
    }

    @Test func aShortenedBatchReplaysToTheSameState() {
        let event = Bots.message("slow", position: 4).event
        let changes: [JournalRecord.Change] = [
            .handled(position: 1, state: [], messages: [Self.message("a")]),
            .cursor("c1"),
            .done(clientMessageID: "a"),
            .handled(position: 2, state: [.add(path: ["n"], amount: 1)], messages: [Self.message("b")]),
            .accepted(event),
            .handled(position: 3, state: [], messages: []),
            .handled(position: 5, state: [], messages: [Self.message("c")]),
            .done(clientMessageID: "c"),
            .done(clientMessageID: "old"),
            .cursor("c2"),
            .handled(position: 4, state: [], messages: []),
            .handled(position: 6, state: [], messages: []),
        ]
        let batch = changes.enumerated().map { JournalRecord(sequence: UInt64($0.offset + 1), change: $0.element) }
        var before = JournalState()
        before.outbox = [Self.message("old")]
        let short = JournalRecord.coalesce(batch, lanes: [])
        #expect(Self.replay(short, over: before) == Self.replay(batch, over: before))
        #expect(short.count < batch.count)
        // What was sent within the batch is written neither as a message nor as done.
        let text = short.map { "\($0.change)" }.joined()
        #expect(!text.contains("\"a\"") && !text.contains("clientMessageID: \"a\""))
        #expect(text.contains("clientMessageID: \"b\""))
    }

    @Test func theEventsOfLanesKeepTheirHandledRecords() {
        let batch = [
            JournalRecord(sequence: 1, change: .handled(position: 7, state: [], messages: [])),
            JournalRecord(sequence: 2, change: .handled(position: 8, state: [], messages: [])),
        ]
        #expect(JournalRecord.coalesce(batch, lanes: [7]).count == 2)
        #expect(JournalRecord.coalesce(batch, lanes: []).count == 1)
    }
}
