import CSQLite
import Foundation
import Synchronization

/// A SQLite database in WAL mode with one writer thread and a pool of reader threads.
///
/// Writes are group-committed: the writer takes every queued write job, runs them in one
/// transaction, commits once, and only then resumes the jobs' tasks. A job that throws is
/// undone alone (one that changed rows before it threw has the batch run again with each
/// job in a savepoint: `WriteContext.run`); a failed commit fails the whole batch. So a
/// write is durable before its caller continues, and many concurrent writers share one
/// fsync.
///
/// Checkpoints run on a thread of their own (`Checkpointer`), not inside a COMMIT.
public final class SQLiteDatabase: Sendable {
    /// How hard commits wait for the disk.
    public enum Synchronous: String, Sendable {
        /// fsync the WAL on every commit: survives power loss.
        case full
        /// fsync only at checkpoints: survives a crash of the process, not of the machine.
        case normal
    }

    public struct Configuration: Sendable {
        public var path: String
        public var readers: Int
        public var synchronous: Synchronous
        /// Write jobs committed together at most.
        public var maxBatch: Int
        /// Copies of the database from before a schema migration kept beside it
        /// (`switchboard-v3.sqlite`), newest first; 0 keeps none.
        public var backupsBeforeMigration: Int

        public init(
            path: String, readers: Int = 4, synchronous: Synchronous = .full, maxBatch: Int = 512,
            backupsBeforeMigration: Int = 2
        ) {
            self.path = path
            self.readers = readers
            self.synchronous = synchronous
            self.maxBatch = maxBatch
            self.backupsBeforeMigration = backupsBeforeMigration
        }
    }

    /// What a write job can do besides SQL: act once the batch is committed.
    public final class WriteContext: StoreWriteContext {
        public let connection: SQLiteConnection
        var afterCommitActions: [() -> Void] = []
        /// Whether each job runs in a savepoint of its own: only when the batch is run a
        /// second time because a job failed part-way (`failedPartWay`).
        let isolatesJobs: Bool
        /// Set when a job threw after changing rows outside a savepoint (or SQLite ended
        /// the transaction): the writer rolls the batch back and runs it again, each job
        /// in a savepoint, so the failed job's changes are undone alone.
        private(set) var failedPartWay = false

        init(connection: SQLiteConnection, isolatesJobs: Bool = false) {
            self.connection = connection
            self.isolatesJobs = isolatesJobs
        }

        /// Runs one job's `body`. A job that throws before it changes a row (a refusal,
        /// which is nearly every failure) needs nothing undone, so a job runs without a
        /// savepoint of its own, which SQLite makes expensive (two statements, and the
        /// pager's bookkeeping for every page the job touches: about a tenth of a send).
        /// One that throws after changing rows marks the batch to be run again isolated.
        func run<T>(_ body: () throws -> T) throws -> T {
            if isolatesJobs { return try connection.savepoint(body) }
            let before = connection.totalChanges
            do {
                return try body()
            } catch {
                if connection.totalChanges != before || !connection.inTransaction { failedPartWay = true }
                throw error
            }
        }

        /// Runs `action` on the writer thread right after this job's batch commits, before
        /// its callers resume; never when the job throws or the commit fails.
        public func afterCommit(_ action: @escaping () -> Void) {
            afterCommitActions.append(action)
        }
    }

    private let writer: SQLiteWriter
    /// Every connection the threads use (the writer's, the checkpointer's, the readers'),
    /// closed by `close()` once the threads have ended, so that the file is free at once
    /// (a restore into the folder of a server stopped in this process needs that).
    private let connections: [SQLiteConnection]
    private let connectionsClosed = Atomic<Bool>(false)
    private let reads = WorkQueue<(SQLiteConnection) -> Void>()
    private let finished: DispatchGroup

    /// Opens the database, applies `migrations`, and starts the threads.
    ///
    /// - Parameters:
    ///   - prepareWriter: called with the writer's connection once the schema is current,
    ///     before any job runs (to watch its row changes, say).
    ///   - beforeCommit: called once per batch before `COMMIT` (bookkeeping that belongs
    ///     with every batch, such as persisting a counter).
    ///   - afterBatch: called once per batch after `COMMIT` succeeded (true) or the batch
    ///     failed (false), before any job's caller resumes.
    public init(
        configuration: Configuration, migrations: [Migration],
        prepareWriter: (SQLiteConnection) throws -> Void = { _ in },
        beforeCommit: @escaping @Sendable (SQLiteConnection) throws -> Void = { _ in },
        afterBatch: @escaping @Sendable (Bool) -> Void = { _ in }
    ) throws {
        let connection = try SQLiteConnection(path: configuration.path)
        try connection.executeScript(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = \(configuration.synchronous == .full ? "FULL" : "NORMAL");
            PRAGMA foreign_keys = ON;
            PRAGMA temp_store = MEMORY;
            PRAGMA cache_size = -32000;
            """)
        try Migrator(migrations: migrations, backupsToKeep: configuration.backupsBeforeMigration).migrate(connection)
        try prepareWriter(connection)
        var readers: [SQLiteConnection] = []
        for _ in 0..<max(1, configuration.readers) {
            let reader = try SQLiteConnection(path: configuration.path, readOnly: true)
            try reader.executeScript("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;")
            readers.append(reader)
        }
        let checkpointer = try Checkpointer(path: configuration.path, synchronous: configuration.synchronous)
        let writer = SQLiteWriter(
            connection: connection, maxBatch: configuration.maxBatch, checkpointer: checkpointer,
            beforeCommit: beforeCommit, afterBatch: afterBatch)
        self.writer = writer
        self.connections = [connection, checkpointer.connection] + readers
        let group = DispatchGroup()
        self.finished = group
        var threads: [Thread] = [
            Self.thread(name: "sqlite-writer", group: group) { writer.run() },
            Self.thread(name: "sqlite-checkpoint", group: group) { checkpointer.run() },
        ]
        for (index, reader) in readers.enumerated() {
            threads.append(Self.thread(name: "sqlite-reader-\(index)", group: group) { [reads] in
                while true {
                    let jobs = reads.take(upTo: 1)
                    if jobs.isEmpty { return }
                    for job in jobs { job(reader) }
                }
            })
        }
        for thread in threads { thread.start() }
    }

    private static func thread(name: String, group: DispatchGroup, body: @escaping @Sendable () -> Void) -> Thread {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        return thread
    }

    /// What the writer has done so far: batches, writes, time busy and in `COMMIT`.
    public var writerStats: WriterStats {
        var stats = writer.counters.snapshot
        stats.backgroundCheckpoints = writer.checkpointer.runs.load(ordering: .relaxed)
        return stats
    }

    /// Write jobs queued and not yet taken by the writer (for tests and diagnostics).
    public var queuedWrites: Int { writer.queue.count }

    /// Runs `body` on the writer thread inside a savepoint of the current batch; returns
    /// once the batch is committed.
    public func write<T: Sendable>(_ body: @escaping @Sendable (WriteContext) throws -> T) async throws -> T {
        let box = ResultBox<T>()
        return try await withCheckedThrowingContinuation { continuation in
            let job = SQLiteWriter.Job(
                perform: { context in
                    do {
                        let value = try context.run { try body(context) }
                        box.result = .success(value)
                        return true
                    } catch {
                        box.result = .failure(error)
                        return false
                    }
                },
                finish: { commitError in
                    if let commitError {
                        continuation.resume(throwing: commitError)
                    } else if let result = box.result {
                        continuation.resume(with: result)
                    } else {
                        continuation.resume(throwing: StoreError.internalFailure("write job did not run"))
                    }
                })
            if !writer.queue.push(job) {
                continuation.resume(throwing: StoreError.closed)
            }
        }
    }

    /// Runs `body` on a reader thread with a read-only connection.
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let pushed = reads.push { connection in
                continuation.resume(with: Result { try body(connection) })
            }
            if !pushed { continuation.resume(throwing: StoreError.closed) }
        }
    }

    deinit {
        // Without close() the threads would wait forever; let them finish queued work and end.
        writer.queue.stop()
        reads.stop()
    }

    /// Finishes queued work, then stops the threads and closes the connections; returns
    /// once they are done. Waits without holding a thread of the cooperative pool (the
    /// database threads it waits for may need that pool to resume the last callers).
    public func close() async {
        writer.queue.stop()
        reads.stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            finished.notify(queue: .global()) { [self] in
                // Once, however many callers wait here.
                if !connectionsClosed.exchange(true, ordering: .acquiringAndReleasing) {
                    for connection in connections { connection.close() }
                }
                continuation.resume()
            }
        }
    }
}
