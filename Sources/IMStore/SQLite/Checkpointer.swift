import CSQLite
import Foundation
import Synchronization

/// Copies the write-ahead log back into the database file on a thread of its own, so the
/// writer does not stop for it.
///
/// SQLite's automatic checkpoint runs inside the COMMIT that passes 1,000 log frames, on
/// the writer, with two fsyncs. Here the writer only asks (`request`) and this thread runs
/// a passive checkpoint from its own connection while writes go on. Passive checkpoints
/// can fall behind a busy writer and the log could then grow without end, so past
/// `catchUpFrames` the writer checkpoints itself between batches (`catchUp`: copying what
/// is left, without waiting for anyone) and the next transaction starts the log over. A
/// background checkpoint still running then is waited for only past `catchUpFrames` and
/// half a request's worth of frames, and readers that keep the log in use only past
/// `patientFrames`, so that the log stays bounded however busy the readers are.
final class Checkpointer: @unchecked Sendable {
    // @unchecked: `connection` is used only by the checkpointer thread; `requested` and
    // `stopped` only under `condition`; the counters are atomic.

    /// Held while a checkpoint runs, by this thread or by the writer's catch-up. SQLite
    /// does not wait for another connection's checkpoint (it answers SQLITE_BUSY at
    /// once, whatever the busy timeout), so the two take turns here.
    private let running = NSLock()

    /// Log frames after which a checkpoint is asked for (SQLite's default).
    static let requestFrames: Int32 = 1000
    /// Log frames after which the writer catches up itself.
    static let catchUpFrames: Int32 = 8000
    /// Log frames after which the catch-up waits for a background checkpoint that runs.
    static let waitForCheckpointFrames: Int32 = catchUpFrames + requestFrames / 2
    /// Log frames after which the catch-up waits for readers of the log too.
    static let patientFrames: Int32 = 4 * catchUpFrames

    let connection: SQLiteConnection
    private let condition = NSCondition()
    private var requested = false
    private var stopped = false
    /// Checkpoints run by this thread.
    let runs = Atomic<Int>(0)

    init(path: String, synchronous: SQLiteDatabase.Synchronous) throws {
        connection = try SQLiteConnection(path: path)
        // The checkpoint syncs the log before and the database after copying, at this
        // connection's level.
        try connection.executeScript("PRAGMA synchronous = \(synchronous == .full ? "FULL" : "NORMAL");")
    }

    /// Asks for a checkpoint soon; requests made meanwhile are merged.
    func request() {
        condition.lock()
        requested = true
        condition.signal()
        condition.unlock()
    }

    /// The thread's loop; returns after `stop()`.
    func run() {
        while true {
            condition.lock()
            while !requested && !stopped { condition.wait() }
            let stop = stopped
            requested = false
            condition.unlock()
            if stop { return }
            // A failure (a reader holds an old snapshot) is retried at the next request.
            running.withLock { _ = Self.checkpoint(connection) }
            runs.add(1, ordering: .relaxed)
        }
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// The writer's catch-up on its own `connection`, between transactions, with the log
    /// `frames` long: copies the whole log and, when no reader still uses it, has the next
    /// transaction start the log over. Short of the thresholds above it does not wait: not
    /// for a background checkpoint that is running, nor for readers (a wait here stops
    /// every write, and SQLite's busy handler sleeps in steps of 1, 2, 5 ms and more:
    /// catch-ups took 3.5-6 ms of the writer's time, which showed in the sends' tail
    /// latency). True when it did; false leaves the log as it is, to try again after the
    /// next batch.
    func catchUp(on writer: SQLiteConnection, frames: Int32) -> Bool {
        if frames >= Self.waitForCheckpointFrames {
            running.lock()
        } else if !running.try() {
            return false
        }
        defer { running.unlock() }
        if frames >= Self.patientFrames { return Self.checkpoint(writer, restart: true) == SQLITE_OK }
        return writer.withoutWaiting { Self.checkpoint(writer, restart: true) == SQLITE_OK }
    }

    /// One checkpoint on `connection`; returns SQLite's result code. Passive (the
    /// default) copies what no reader still needs and never waits. `restart` waits (the
    /// connection's busy timeout) for readers of the log and copies all of it.
    @discardableResult
    static func checkpoint(_ connection: SQLiteConnection, restart: Bool = false) -> Int32 {
        var logFrames: Int32 = 0
        var copied: Int32 = 0
        return sqlite3_wal_checkpoint_v2(
            connection.handle, nil, restart ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied)
    }
}
