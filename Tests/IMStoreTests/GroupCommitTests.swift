import Foundation
import IMStore
import TestSupport
import Testing

@Suite struct GroupCommitTests {
    @Test(.timeLimit(.minutes(1)))
    func aThrowingJobIsUndoneAloneWhileTheRestOfItsBatchCommits() async throws {
        // Counts batches: each job notes how many batches committed before its own.
        let batches = Shared(0)
        let batchOfJob = Shared([Int: Int]())
        let afterCommitRan = Shared(Set<Int>())
        try await withDatabase(beforeCommit: { _ in batches.update { $0 += 1 } }) { database in
            let hold = WriterHold()
            let holding = Task { try await database.write { _ in hold.hold() } }
            await hold.waitUntilHeld()

            let count = 200
            let arrivals = Arrivals()
            let results = Task {
                await withTaskGroup(of: (Int, Result<Void, any Error>).self) { group in
                    for index in 0..<count {
                        group.addTask {
                            arrivals.arrive()
                            let result = await outcome {
                                try await database.write { context in
                                    batchOfJob.update { $0[index] = batches.value }
                                    try context.connection.execute(
                                        "INSERT INTO items (id, value) VALUES (?, ?)", index + 1, "job \(index)")
                                    context.afterCommit { afterCommitRan.update { _ = $0.insert(index) } }
                                    if index % 3 == 0 { throw Deliberate(index: index) }
                                }
                            }
                            return (index, result)
                        }
                    }
                    var all: [Int: Result<Void, any Error>] = [:]
                    for await (index, result) in group { all[index] = result }
                    return all
                }
            }
            // Every job waits in the queue behind the held writer before it goes on, so
            // they all share one batch however the tasks were scheduled.
            await arrivals.wait(for: count)
            try await eventually("all \(count) jobs queued") { database.queuedWrites == count }
            hold.release()
            try await holding.value
            let finished = await results.value

            var succeeded = Set<Int>()
            for index in 0..<count {
                switch try #require(finished[index]) {
                case .success: succeeded.insert(index)
                case .failure(let error):
                    #expect(error as? Deliberate == Deliberate(index: index), "job \(index) failed with \(error)")
                }
            }
            #expect(succeeded == Set((0..<count).filter { $0 % 3 != 0 }))
            let stored = try await database.allItems()
            #expect(Set(stored.keys) == Set(succeeded.map { Int64($0 + 1) }))
            #expect(afterCommitRan.value == succeeded)

            // The jobs queued up behind the hold, so failing and succeeding jobs shared one
            // batch: the one after the held job's.
            let batchOf = batchOfJob.value
            #expect(Set(batchOf.values) == [1])
            #expect(batches.value == 2)
            // Jobs run without savepoints first; the first job to throw after changing a
            // row sent the batch round again, each job in a savepoint: once.
            #expect(database.writerStats.isolatedReruns == 1)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func jobsRefusedBeforeTheyChangeAnythingNeedNoSecondRun() async throws {
        try await withDatabase { database in
            let hold = WriterHold()
            let holding = Task { try await database.write { _ in hold.hold() } }
            await hold.waitUntilHeld()

            let count = 60
            let arrivals = Arrivals()
            let results = Task {
                await withTaskGroup(of: (Int, Bool).self) { group in
                    for index in 0..<count {
                        group.addTask {
                            arrivals.arrive()
                            let result = await outcome {
                                try await database.write { context in
                                    // A refusal is decided by reading, before any write.
                                    let taken = try context.connection.scalar("SELECT count(*) FROM items WHERE id = ?", index)
                                    if index % 2 == 0 || taken != 0 { throw Deliberate(index: index) }
                                    try context.connection.execute(
                                        "INSERT INTO items (id, value) VALUES (?, ?)", index, "job \(index)")
                                }
                            }
                            if case .success = result { return (index, true) }
                            return (index, false)
                        }
                    }
                    var succeeded = Set<Int>()
                    for await (index, ok) in group where ok { succeeded.insert(index) }
                    return succeeded
                }
            }
            await arrivals.wait(for: count)
            try await eventually("all \(count) jobs queued") { database.queuedWrites == count }
            hold.release()
            try await holding.value
            let succeeded = await results.value
            #expect(succeeded == Set((0..<count).filter { $0 % 2 == 1 }))
            #expect(Set(try await database.allItems().keys) == Set(succeeded.map(Int64.init)))
            #expect(database.writerStats.isolatedReruns == 0)
        }
    }

    @Test func aFailedCommitFailsTheWholeBatchAndRunsNoAfterCommitAction() async throws {
        let failCommit = Shared(false)
        let afterCommitRan = Shared(0)
        try await withDatabase(beforeCommit: { _ in
            if failCommit.value { throw Deliberate(index: -1) }
        }) { database in
            failCommit.update { $0 = true }
            let error = await #expect(throws: Deliberate.self) {
                try await database.write { context in
                    try context.connection.execute("INSERT INTO items (value) VALUES (?)", "lost")
                    context.afterCommit { afterCommitRan.update { $0 += 1 } }
                }
            }
            #expect(error == Deliberate(index: -1))
            #expect(afterCommitRan.value == 0)
            #expect(try await database.allItems().isEmpty)

            // The writer goes on with the next batch.
            failCommit.update { $0 = false }
            let id = try await database.insertItem(.text("kept"))
            #expect(try await database.allItems() == [id: .text("kept")])
        }
    }

    @Test func aReadAfterAWriteReturnsSeesTheWrite() async throws {
        try await withDatabase { database in
            for round in 0..<40 {
                let id = try await database.insertItem(.integer(Int64(round)))
                #expect(try await database.item(id)?.value == .integer(Int64(round)))
                let total = try await database.read { try $0.scalar("SELECT count(*) FROM items") }
                #expect(total == Int64(round + 1))
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func closeFinishesQueuedWritesThenRefusesNewWork() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try openDatabase(directory)
        let hold = WriterHold()
        let holding = Task { try await database.write { _ in hold.hold() } }
        await hold.waitUntilHeld()

        let count = 50
        let arrivals = Arrivals()
        var writers: [Task<Result<Int64, any Error>, Never>] = []
        for index in 0..<count {
            writers.append(
                Task {
                    arrivals.arrive()
                    return await outcome { try await database.insertItem(.integer(Int64(index))) }
                })
        }
        await arrivals.wait(for: count)
        // Stop the database while the jobs wait behind the held writer, then let it go on.
        let stopping = Task.detached { await database.close() }
        hold.release()
        await stopping.value
        try await holding.value

        var committed: [Int64: SQLValue] = [:]
        for (index, writer) in writers.enumerated() {
            switch await writer.value {
            case .success(let id): committed[id] = .integer(Int64(index))
            case .failure(let error):
                // Only a job that had not reached the queue yet may be refused.
                #expect((error as? StoreError) == .closed, "write \(index) failed with \(error)")
            }
        }
        #expect(!committed.isEmpty)

        await #expect(throws: StoreError.closed) { try await database.insertItem(.null) }
        await #expect(throws: StoreError.closed) { try await database.read { try $0.scalar("SELECT 1") } }

        try await closing(try openDatabase(directory)) { reopened async throws in
            #expect(try await reopened.allItems() == committed)
        }
    }
}

@Suite struct MigrationTests {
    static let first = Migration(
        version: 1, name: "log",
        sql: "CREATE TABLE log (entry TEXT NOT NULL); INSERT INTO log (entry) VALUES ('v1');")
    static let second = Migration(version: 2, name: "more log", sql: "INSERT INTO log (entry) VALUES ('v2');")

    static func entries(_ database: SQLiteDatabase) async throws -> [String] {
        try await database.read { try $0.rows("SELECT entry FROM log ORDER BY rowid") { $0.text(0) } }
    }

    static func userVersion(_ database: SQLiteDatabase) async throws -> Int64? {
        try await database.read { try $0.scalar("PRAGMA user_version") }
    }

    @Test func reopeningRunsOnlyNewMigrationsAndKeepsData() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }

        let created = try openDatabase(directory, migrations: [Self.first])
        #expect(try await Self.entries(created) == ["v1"])
        #expect(try await Self.userVersion(created) == 1)
        await created.close()

        let reopened = try openDatabase(directory, migrations: [Self.first])
        #expect(try await Self.entries(reopened) == ["v1"])
        await reopened.close()

        // Given out of order, migrations still run by version.
        let upgraded = try openDatabase(directory, migrations: [Self.second, Self.first])
        #expect(try await Self.entries(upgraded) == ["v1", "v2"])
        #expect(try await Self.userVersion(upgraded) == 2)
        await upgraded.close()
    }

    @Test func aFailingMigrationLeavesTheDatabaseAtTheLastGoodVersion() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let broken = Migration(version: 2, name: "broken", sql: "INSERT INTO log (entry) VALUES ('v2'); NOT SQL;")
        #expect(throws: SQLiteError.self) { try openDatabase(directory, migrations: [Self.first, broken]) }

        try await closing(try openDatabase(directory, migrations: [Self.first])) { database async throws in
            #expect(try await Self.entries(database) == ["v1"])
            #expect(try await Self.userVersion(database) == 1)
        }
    }

    @Test func aDatabaseFromANewerSchemaIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let upgraded = try openDatabase(directory, migrations: [Self.first, Self.second])
        await upgraded.close()

        let error = #expect(throws: StoreError.self) { try openDatabase(directory, migrations: [Self.first]) }
        #expect(error?.kind == "incompatibleSchema")
        #expect(error?.description.contains("2") == true)
    }

    @Test func aStoreFileWithAHigherUserVersionIsRefusedAndLeftAlone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let connection = try SQLiteConnection(path: storePath(directory))
            try connection.executeScript("CREATE TABLE future (x); PRAGMA user_version = 99;")
        }
        let error = #expect(throws: StoreError.self) { try openStore(directory) }
        #expect(error?.kind == "incompatibleSchema")
        #expect(error?.description.contains("99") == true)

        let connection = try SQLiteConnection(path: storePath(directory), readOnly: true)
        #expect(try connection.scalar("PRAGMA user_version") == 99)
        #expect(try connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'users'") == 0)
    }

    @Test func aFileThatIsNotADatabaseIsRefusedWithSQLitesReason() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let garbage = Array("this is not a database, just some text that fills a page or so".utf8)
        try Data(Array(repeating: garbage, count: 100).joined()).write(to: URL(fileURLWithPath: storePath(directory)))
        let error = #expect(throws: SQLiteError.self) { try openStore(directory) }
        #expect(error?.message.contains("not a database") == true, "\(String(describing: error))")
    }

    @Test func aReopenedStoreKeepsItsSchemaVersionEpochAndData() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try openStore(directory)
        let alice = try await store.makeUser("alice")
        let epoch = store.epoch
        await store.close()

        try await closing(try openStore(directory)) { reopened async throws in
            #expect(reopened.epoch == epoch)
            #expect(try await reopened.user(named: "alice") == alice)
            let connection = try SQLiteConnection(path: storePath(directory), readOnly: true)
            #expect(try connection.scalar("PRAGMA user_version") == Int64(Schema.migrations.count))
        }
    }
}
