import Foundation
import PostgresTestSupport
import TestSupport
import Testing

@testable import IMStore

/// The PostgreSQL store's group commit (`PostgresWriter`), on a table of its own.
@Suite struct PostgresWriterTests {
    static let table = "CREATE TABLE items (id bigint PRIMARY KEY, value text NOT NULL)"

    /// A writer on a fresh database with `items`; `beforeCommit` runs at each batch's end.
    static func withWriter<T>(
        beforeCommit: @escaping @Sendable (PostgresConnection, PostgresBatch) throws -> Void = { _, _ in },
        _ body: (PostgresWriter, PostgresPool) async throws -> T
    ) async throws -> T {
        try await withPostgresPool { pool, database in
            try await pool.withConnection { try $0.executeScript(table) }
            let writer = PostgresWriter(
                configuration: PostgresWriter.Configuration(connection: database.configuration),
                beforeCommit: beforeCommit)
            do {
                let result = try await body(writer, pool)
                await writer.close()
                return result
            } catch {
                await writer.close()
                throw error
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aThrowingJobIsUndoneAloneWhileTheRestOfItsBatchCommits() async throws {
        let batchSizes = Shared([Int]())
        try await Self.withWriter(beforeCommit: { _, batch in batchSizes.update { $0.append(batch.afterCommit.count) } }) {
            writer, pool in
            let ran = Shared(Set<Int>())
            let count = 60
            let hold = WriterHold()
            async let held: Void = writer.write { _ in hold.hold() }
            await hold.waitUntilHeld()
            defer { hold.release() }
            let results = Task {
                await withTaskGroup(of: (Int, Bool).self) { group in
                    for index in 0..<count {
                        group.addTask {
                            let result = await outcome {
                                try await writer.write { context in
                                    try context.connection.execute("INSERT INTO items VALUES ($1, $2)", index, "job \(index)")
                                    context.afterCommit { ran.update { _ = $0.insert(index) } }
                                    if index % 3 == 0 { throw Deliberate(index: index) }
                                }
                            }
                            return (index, (try? result.get()) != nil)
                        }
                    }
                    return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
                }
            }
            try await eventually("\(count) jobs queued") { writer.queued >= count }
            hold.release()
            try await held
            let succeeded = await results.value
            let kept = Set(try await pool.withConnection { try $0.rows("SELECT id FROM items") { Int(try $0.int(0)) } })
            #expect(kept == Set((0..<count).filter { $0 % 3 != 0 }))
            #expect(succeeded.filter(\.value).map(\.key).sorted() == kept.sorted())
            #expect(ran.value == kept)
            // The queued jobs were taken together (the batch's actions are its survivors').
            #expect(batchSizes.value.contains(kept.count))
        }
    }

    @Test func aJobThatAsksToRunAgainRunsFromItsSavepointAndOrderedJobsRunLastInKeyOrder() async throws {
        try await Self.withWriter { writer, pool in
            let attempts = Shared(0)
            let order = Shared([String]())
            let hold = WriterHold()
            async let held: Void = writer.write { _ in hold.hold() }
            await hold.waitUntilHeld()
            defer { hold.release() }
            async let again: Void = writer.write { context in
                try context.connection.execute("INSERT INTO items VALUES (1, 'again')")
                if attempts.update({ $0 += 1; return $0 }) == 1 { throw PostgresWriter.RunAgain() }
            }
            // Noted once their batch commits (a batch may run more than once before).
            async let late: Void = writer.write(order: 9) { $0.afterCommit { order.update { $0.append("nine") } } }
            async let early: Void = writer.write(order: 2) { $0.afterCommit { order.update { $0.append("two") } } }
            async let plain: Void = writer.write { $0.afterCommit { order.update { $0.append("plain") } } }
            try await eventually("4 jobs queued") { writer.queued >= 4 }
            hold.release()
            _ = try await (held, again, late, early, plain)
            #expect(attempts.value == 2)
            #expect(order.value == ["plain", "two", "nine"])
            #expect(try await pool.withConnection { try $0.first("SELECT value FROM items WHERE id = 1") { try $0.text(0) } } == "again")
        }
    }

    @Test func aBatchWhoseEndFailsFailsEveryJobAndRunsNoAfterCommitAction() async throws {
        let failNext = Shared(true)
        try await Self.withWriter(beforeCommit: { connection, _ in
            if failNext.update({ let value = $0; $0 = false; return value }) {
                try connection.execute("INSERT INTO items VALUES (1, 'x'), (1, 'y')")  // a unique violation
            }
        }) { writer, pool in
            let ran = Shared(false)
            let failed = await outcome {
                try await writer.write { context in
                    try context.connection.execute("INSERT INTO items VALUES (5, 'lost')")
                    context.afterCommit { ran.update { $0 = true } }
                }
            }
            #expect((failed.failure as? StoreError).map { if case .conflict = $0 { true } else { false } } == true)
            #expect(!ran.value)
            #expect(try await pool.withConnection { try $0.first("SELECT count(*) FROM items") { try $0.int(0) } } == 0)
            // The next batch runs on a working session.
            _ = try await writer.write { try $0.connection.execute("INSERT INTO items VALUES (6, 'kept')") }
            #expect(try await pool.withConnection { try $0.first("SELECT count(*) FROM items") { try $0.int(0) } } == 1)
        }
    }
}
