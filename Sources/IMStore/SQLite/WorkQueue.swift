import Foundation

/// A FIFO of jobs served by dedicated threads, so blocking SQLite calls never run on
/// Swift's cooperative pool.
final class WorkQueue<Job>: @unchecked Sendable {
    // @unchecked: `jobs` and `stopped` are only touched while holding `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var stopped = false

    /// Adds a job; false when the queue has been stopped.
    func push(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Jobs waiting to be taken.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// Waits for at least one job and takes up to `limit`; empty once stopped and drained.
    func take(upTo limit: Int) -> [Job] {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !stopped { condition.wait() }
        let count = min(limit, jobs.count)
        let batch = Array(jobs.prefix(count))
        jobs.removeFirst(count)
        return batch
    }

    /// Lets the threads finish the queued jobs and then return.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Holds a job's result between its run on a database thread and the resumption of the
/// awaiting task.
final class ResultBox<T>: @unchecked Sendable {
    // @unchecked: written on the database thread before the continuation is resumed, and
    // read only after it; the continuation's resume orders the two.
    var result: Result<T, any Error>?
}
