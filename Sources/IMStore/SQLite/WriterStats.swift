import Foundation
import Synchronization

/// What the writer thread has done since the database opened: how many batches it
/// committed, how many write jobs they held, and where its time went. Read it to see
/// whether group commit is grouping (writes ÷ batches) and whether the writer or the
/// disk is the limit (busy and commit time against wall time).
public struct WriterStats: Sendable, Equatable {
    /// Batches committed or failed.
    public var batches: Int
    /// Write jobs run in those batches.
    public var writes: Int
    /// The most jobs one batch held.
    public var largestBatch: Int
    /// Nanoseconds from each batch's `BEGIN` to the end of its `COMMIT`.
    public var busyNanoseconds: Int
    /// Nanoseconds spent in `COMMIT` alone (with `durability: full`, mostly the WAL fsync).
    public var commitNanoseconds: Int
    /// CPU time the writer thread used for its batches, resuming their callers included
    /// (waiting for the disk excluded).
    public var cpuNanoseconds: Int
    /// Checkpoints run in the background.
    public var backgroundCheckpoints: Int
    /// Checkpoints the writer ran itself because the background ones fell behind.
    public var catchUpCheckpoints: Int
    /// Batches run a second time with each job in a savepoint, because a job threw after
    /// changing rows (`SQLiteDatabase.WriteContext.run`).
    public var isolatedReruns: Int

    /// Statistics; all zero by default.
    public init(
        batches: Int = 0, writes: Int = 0, largestBatch: Int = 0, busyNanoseconds: Int = 0,
        commitNanoseconds: Int = 0, cpuNanoseconds: Int = 0, backgroundCheckpoints: Int = 0,
        catchUpCheckpoints: Int = 0, isolatedReruns: Int = 0
    ) {
        self.batches = batches
        self.writes = writes
        self.largestBatch = largestBatch
        self.busyNanoseconds = busyNanoseconds
        self.commitNanoseconds = commitNanoseconds
        self.cpuNanoseconds = cpuNanoseconds
        self.backgroundCheckpoints = backgroundCheckpoints
        self.catchUpCheckpoints = catchUpCheckpoints
        self.isolatedReruns = isolatedReruns
    }
}

/// The live counters behind `WriterStats`: written by the writer thread only, read by
/// anyone.
final class WriterCounters: Sendable {
    private let batches = Atomic<Int>(0)
    private let writes = Atomic<Int>(0)
    private let largestBatch = Atomic<Int>(0)
    private let busy = Atomic<Int>(0)
    private let commit = Atomic<Int>(0)
    private let cpu = Atomic<Int>(0)
    let catchUpCheckpoints = Atomic<Int>(0)
    /// Batches run a second time, each job in a savepoint, after a job failed part-way.
    let isolatedReruns = Atomic<Int>(0)

    func record(jobs: Int, busyNanoseconds: UInt64, commitNanoseconds: UInt64, cpuNanoseconds: Int) {
        cpu.add(cpuNanoseconds, ordering: .relaxed)
        batches.add(1, ordering: .relaxed)
        writes.add(jobs, ordering: .relaxed)
        if jobs > largestBatch.load(ordering: .relaxed) { largestBatch.store(jobs, ordering: .relaxed) }
        busy.add(Int(truncatingIfNeeded: busyNanoseconds), ordering: .relaxed)
        commit.add(Int(truncatingIfNeeded: commitNanoseconds), ordering: .relaxed)
    }

    var snapshot: WriterStats {
        WriterStats(
            batches: batches.load(ordering: .relaxed), writes: writes.load(ordering: .relaxed),
            largestBatch: largestBatch.load(ordering: .relaxed), busyNanoseconds: busy.load(ordering: .relaxed),
            commitNanoseconds: commit.load(ordering: .relaxed), cpuNanoseconds: cpu.load(ordering: .relaxed),
            catchUpCheckpoints: catchUpCheckpoints.load(ordering: .relaxed),
            isolatedReruns: isolatedReruns.load(ordering: .relaxed))
    }

    /// CPU time of the calling thread, in nanoseconds.
    static func threadCPUTime() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }
}
