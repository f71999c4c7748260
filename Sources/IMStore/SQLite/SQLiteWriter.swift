import CSQLite
import Foundation
import Synchronization

/// The writer thread of a `SQLiteDatabase`: runs queued write jobs in batches, one
/// transaction and one COMMIT per batch, then completes them (after-commit actions, the
/// batch callback, the callers).
final class SQLiteWriter: @unchecked Sendable {
    // @unchecked: `connection` and `requestedAt` are used only by the writer thread
    // (`run` and the WAL hook SQLite calls on it); everything else is immutable, atomic or
    // a thread-safe queue.

    /// A write job: `perform` runs it in its savepoint (false when it threw and was
    /// undone); `finish` resumes its caller, with the error that failed its batch if any.
    struct Job {
        let perform: (SQLiteDatabase.WriteContext) -> Bool
        let finish: ((any Error)?) -> Void
    }

    let queue = WorkQueue<Job>()
    let counters = WriterCounters()
    let checkpointer: Checkpointer

    private let connection: SQLiteConnection
    private let maxBatch: Int
    private let beforeCommit: @Sendable (SQLiteConnection) throws -> Void
    private let afterBatch: @Sendable (Bool) -> Void
    /// Frames in the log after the latest commit, from SQLite's WAL hook.
    private let logFrames = Atomic<Int32>(0)
    /// The log's size when a checkpoint was last asked for (writer thread only).
    private var requestedAt: Int32 = 0

    init(
        connection: SQLiteConnection, maxBatch: Int, checkpointer: Checkpointer,
        beforeCommit: @escaping @Sendable (SQLiteConnection) throws -> Void,
        afterBatch: @escaping @Sendable (Bool) -> Void
    ) {
        self.connection = connection
        self.maxBatch = maxBatch
        self.checkpointer = checkpointer
        self.beforeCommit = beforeCommit
        self.afterBatch = afterBatch
    }

    /// The writer thread's loop: returns once the queue is stopped and drained, after
    /// stopping the checkpointer.
    func run() {
        // Replaces SQLite's automatic checkpoint (itself a WAL hook) for this connection.
        sqlite3_wal_hook(connection.handle, walHook, Unmanaged.passUnretained(self).toOpaque())
        defer {
            sqlite3_wal_hook(connection.handle, nil, nil)
            checkpointer.stop()
        }
        while true {
            let batch = queue.take(upTo: maxBatch)
            if batch.isEmpty { return }
            run(batch)
        }
    }

    /// Called by SQLite on this thread after each commit with the log's size in frames.
    fileprivate func committed(logFrames frames: Int32) {
        logFrames.store(frames, ordering: .relaxed)
        // Once per `requestFrames` new frames: the log only starts over when a checkpoint
        // has copied all of it before the next transaction, so under steady writes it
        // stays above the threshold, and asking after every commit would checkpoint (and
        // fsync twice) after every commit.
        // Past `catchUpFrames` the writer catches up itself: no more background runs,
        // which would hold the lock its catch-up only tries.
        if frames < requestedAt { requestedAt = 0 }
        if frames - requestedAt >= Checkpointer.requestFrames, frames < Checkpointer.catchUpFrames {
            requestedAt = frames
            checkpointer.request()
        }
    }

    private func run(_ jobs: [Job]) {
        let started = DispatchTime.now().uptimeNanoseconds
        let startedCPU = WriterCounters.threadCPUTime()
        var commitStarted = started
        var committed: UInt64 = 0
        defer {
            let ended = committed != 0 ? committed : DispatchTime.now().uptimeNanoseconds
            counters.record(
                jobs: jobs.count, busyNanoseconds: ended - started, commitNanoseconds: ended - commitStarted,
                cpuNanoseconds: WriterCounters.threadCPUTime() - startedCPU)
        }
        var context = SQLiteDatabase.WriteContext(connection: connection)
        do {
            try connection.execute("BEGIN IMMEDIATE")
            if !perform(jobs, context) {
                // A job failed after changing rows: once more from the start, each job in
                // a savepoint (the jobs only change the database, so they can run again).
                try connection.execute("ROLLBACK")
                counters.isolatedReruns.add(1, ordering: .relaxed)
                context = SQLiteDatabase.WriteContext(connection: connection, isolatesJobs: true)
                try connection.execute("BEGIN IMMEDIATE")
                _ = perform(jobs, context)
            }
        } catch {
            if connection.inTransaction { _ = try? connection.execute("ROLLBACK") }
            complete(jobs, actions: [], failure: error)
            return
        }
        do {
            try beforeCommit(connection)
            commitStarted = DispatchTime.now().uptimeNanoseconds
            try connection.execute("COMMIT")
            committed = DispatchTime.now().uptimeNanoseconds
        } catch {
            _ = try? connection.execute("ROLLBACK")
            complete(jobs, actions: [], failure: error)
            return
        }
        complete(jobs, actions: context.afterCommitActions, failure: nil)
        let frames = logFrames.load(ordering: .relaxed)
        if frames >= Checkpointer.catchUpFrames, checkpointer.catchUp(on: connection, frames: frames) {
            // The background checkpoints fell behind: the rest was copied here, where no
            // commit can come in between, so the next transaction starts the log over.
            // (When it could not be done, the next batch tries again.)
            logFrames.store(0, ordering: .relaxed)
            requestedAt = 0
            counters.catchUpCheckpoints.add(1, ordering: .relaxed)
        }
    }

    /// Runs the jobs in the open transaction, keeping the after-commit actions of those
    /// that succeeded; false (at once) when one failed part-way and the batch must be run
    /// again isolated.
    private func perform(_ jobs: [Job], _ context: SQLiteDatabase.WriteContext) -> Bool {
        for job in jobs {
            let mark = context.afterCommitActions.count
            if !job.perform(context) {
                context.afterCommitActions.removeSubrange(mark...)
                if context.failedPartWay { return false }
            }
        }
        return true
    }

    /// Completes a batch: after-commit actions (only if it committed), the batch callback,
    /// then the callers.
    private func complete(_ jobs: [Job], actions: [() -> Void], failure: (any Error)?) {
        if failure == nil { for action in actions { action() } }
        afterBatch(failure == nil)
        for job in jobs { job.finish(failure) }
    }
}

/// SQLite's WAL hook: tells the writer how large the log is after a commit.
private func walHook(
    context: UnsafeMutableRawPointer?, db: OpaquePointer?, name: UnsafePointer<CChar>?, frames: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<SQLiteWriter>.fromOpaque(context).takeUnretainedValue().committed(logFrames: frames)
    return SQLITE_OK
}
