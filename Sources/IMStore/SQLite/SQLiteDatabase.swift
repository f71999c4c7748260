import CSQLite
import Foundation

/// A SQLite database in WAL mode with one writer thread and a pool of reader threads.
///
/// Writes are group-committed: the writer takes every queued write job, runs each in its
/// own savepoint inside one transaction, commits once, and only then resumes the jobs'
/// tasks. A job that throws is undone alone; a failed commit fails the whole batch. So a
/// write is durable before its caller continues, and many concurrent writers share one
/// fsync.
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

        public init(path: String, readers: Int = 4, synchronous: Synchronous = .full, maxBatch: Int = 512) {
            self.path = path
            self.readers = readers
            self.synchronous = synchronous
            self.maxBatch = maxBatch
        }
    }

    /// What a write job can do besides SQL: act once the batch is committed.
    public final class WriteContext {
        public let connection: SQLiteConnection
        fileprivate var afterCommitActions: [() -> Void] = []

        fileprivate init(connection: SQLiteConnection) { self.connection = connection }

        /// Runs `action` on the writer thread right after this job's batch commits; never
        /// when the job throws or the commit fails.
        public func afterCommit(_ action: @escaping () -> Void) {
            afterCommitActions.append(action)
        }
    }

    private struct WriteJob {
        let perform: (WriteContext) -> Bool
        let finish: ((any Error)?) -> Void
    }

    private let configuration: Configuration
    private let writes = WorkQueue<WriteJob>()
    private let reads = WorkQueue<(SQLiteConnection) -> Void>()
    private let finished: DispatchGroup
    private let counters = WriterCounters()
    /// Runs on the writer thread inside each batch's transaction, after its jobs.
    private let beforeCommit: @Sendable (SQLiteConnection) throws -> Void
    /// Runs on the writer thread once per batch after it committed (true) or failed (false).
    private let afterBatch: @Sendable (Bool) -> Void

    /// Opens the database, applies `migrations`, and starts the threads.
    ///
    /// - Parameters:
    ///   - beforeCommit: called once per batch before `COMMIT` (bookkeeping that belongs
    ///     with every batch, such as persisting a counter).
    ///   - afterBatch: called once per batch after `COMMIT` succeeded (true) or the batch
    ///     failed (false), before any job's caller resumes.
    public init(
        configuration: Configuration, migrations: [Migration],
        beforeCommit: @escaping @Sendable (SQLiteConnection) throws -> Void = { _ in },
        afterBatch: @escaping @Sendable (Bool) -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        self.beforeCommit = beforeCommit
        self.afterBatch = afterBatch
        let writer = try SQLiteConnection(path: configuration.path)
        try writer.executeScript(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = \(configuration.synchronous == .full ? "FULL" : "NORMAL");
            PRAGMA foreign_keys = ON;
            PRAGMA temp_store = MEMORY;
            PRAGMA cache_size = -32000;
            """)
        try Migrator(migrations: migrations).migrate(writer)
        var readers: [SQLiteConnection] = []
        for _ in 0..<max(1, configuration.readers) {
            let reader = try SQLiteConnection(path: configuration.path, readOnly: true)
            try reader.executeScript("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;")
            readers.append(reader)
        }
        let group = DispatchGroup()
        self.finished = group
        var threads: [Thread] = []
        threads.append(Self.thread(name: "sqlite-writer", group: group) { [writes, counters, beforeCommit, afterBatch, maxBatch = configuration.maxBatch] in
            Self.writerLoop(
                connection: writer, queue: writes, maxBatch: maxBatch, counters: counters,
                beforeCommit: beforeCommit, afterBatch: afterBatch)
        })
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

    private static func writerLoop(
        connection: SQLiteConnection, queue: WorkQueue<WriteJob>, maxBatch: Int, counters: WriterCounters,
        beforeCommit: (SQLiteConnection) throws -> Void, afterBatch: (Bool) -> Void
    ) {
        while true {
            let batch = queue.take(upTo: maxBatch)
            if batch.isEmpty { return }
            let started = DispatchTime.now().uptimeNanoseconds
            let startedCPU = WriterCounters.threadCPUTime()
            var commitStarted = started
            var committed: UInt64 = 0
            defer {
                let ended = committed != 0 ? committed : DispatchTime.now().uptimeNanoseconds
                counters.record(
                    jobs: batch.count, busyNanoseconds: ended - started, commitNanoseconds: ended - commitStarted,
                    cpuNanoseconds: WriterCounters.threadCPUTime() - startedCPU)
            }
            let context = WriteContext(connection: connection)
            do {
                try connection.execute("BEGIN IMMEDIATE")
            } catch {
                afterBatch(false)
                for job in batch { job.finish(error) }
                continue
            }
            for job in batch {
                let mark = context.afterCommitActions.count
                if !job.perform(context) {
                    context.afterCommitActions.removeSubrange(mark...)
                }
            }
            do {
                try beforeCommit(connection)
                commitStarted = DispatchTime.now().uptimeNanoseconds
                try connection.execute("COMMIT")
                committed = DispatchTime.now().uptimeNanoseconds
            } catch {
                _ = try? connection.execute("ROLLBACK")
                afterBatch(false)
                for job in batch { job.finish(error) }
                continue
            }
            for action in context.afterCommitActions { action() }
            afterBatch(true)
            for job in batch { job.finish(nil) }
        }
    }

    /// What the writer has done so far: batches, writes, time busy and in `COMMIT`.
    public var writerStats: WriterStats { counters.snapshot }

    /// Runs `body` on the writer thread inside a savepoint of the current batch; returns
    /// once the batch is committed.
    public func write<T: Sendable>(_ body: @escaping @Sendable (WriteContext) throws -> T) async throws -> T {
        let box = ResultBox<T>()
        return try await withCheckedThrowingContinuation { continuation in
            let job = WriteJob(
                perform: { context in
                    do {
                        let value = try context.connection.savepoint { try body(context) }
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
            if !writes.push(job) {
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
        writes.stop()
        reads.stop()
    }

    /// Finishes queued work, then stops the threads and closes the connections.
    public func close() {
        writes.stop()
        reads.stop()
        finished.wait()
    }
}
