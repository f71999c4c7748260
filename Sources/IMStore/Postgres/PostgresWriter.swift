import Foundation
import Lifecycle

/// The write side of a PostgreSQL store on one server node: group commit, as
/// `SQLiteDatabase` does it, on sessions of its own.
///
/// Every write is a job in one queue. A writer session takes the queued jobs (up to
/// `maxBatch`), runs each in its own savepoint inside one transaction, lets the store end
/// the batch (`beforeCommit`: the feed positions and the one notification of the batch),
/// commits once, runs the batch's after-commit actions, and only then resumes the jobs'
/// callers. So a write is durable before its caller continues, many writers share one
/// commit, and the feed counter and `NOTIFY`'s cluster-wide lock are taken once per batch.
///
/// A job that fails is undone alone. Batches run without savepoints first (they would
/// cost two round trips per job); when a job fails, the batch is undone and run again
/// with a savepoint per job, so the failing one is undone alone (its savepoint, and
/// whatever it left in the batch) and the others commit. A job that lost a deadlock or a
/// serialization conflict, or asked to run again (`PostgresWriter.RunAgain`), is run
/// again from its savepoint, up to `jobRetries` times: rolling back to a savepoint
/// releases the locks taken after it, so the other side can go on. Within a batch, jobs that name a lock order (the conversation whose row they
/// lock first) run after the others in that order, so batches of different nodes take
/// those rows in one order and do not deadlock on them. A failed `BEGIN`, end or `COMMIT`
/// fails the whole batch (run again after a conflict, up to the same bound).
final class PostgresWriter: Sendable {
    struct Configuration: Sendable {
        var connection: PostgresConfiguration
        /// Sessions running batches at once. One keeps the node's own batches from
        /// waiting on each other's row locks; more let a node's writes overlap.
        var sessions: Int = 1
        var maxBatch: Int = 256
        var jobRetries: Int = 3
    }

    /// Thrown by a job to be run again from its savepoint (it lost a race another
    /// transaction has since committed, e.g. a unique key it checked for first).
    struct RunAgain: Error {}

    /// A queued job: `run` performs it inside its savepoint (storing its result),
    /// `fail` stores the error it finally failed with, `finish` resumes its caller (with
    /// the error that failed its whole batch, if any).
    struct Job {
        var order: Int64?
        var run: (PostgresWriteContext) throws -> Void
        var fail: (any Error) -> Void
        var finish: ((any Error)?) -> Void
    }

    private let configuration: Configuration
    private let queue = WorkQueue<Job>()
    let counters = WriterCounters()
    private let beforeCommit: @Sendable (PostgresConnection, PostgresBatch) throws -> Void
    private let ended: [Latch]

    /// Starts the sessions; each connects on its first batch.
    init(configuration: Configuration, beforeCommit: @escaping @Sendable (PostgresConnection, PostgresBatch) throws -> Void) {
        self.configuration = configuration
        self.beforeCommit = beforeCommit
        ended = (0..<max(1, configuration.sessions)).map { _ in Latch() }
        for (index, latch) in ended.enumerated() {
            let thread = Thread { [self] in
                runSession()
                latch.open()
            }
            thread.name = "postgres-writer-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    deinit { queue.stop() }

    /// Jobs queued and not yet taken.
    var queued: Int { queue.count }

    /// Runs `body` in a savepoint of the next batch; returns once that batch committed.
    func write<T: Sendable>(order: Int64? = nil, _ body: @escaping @Sendable (PostgresWriteContext) throws -> T)
        async throws -> T
    {
        let box = ResultBox<T>()
        return try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                order: order,
                run: { box.result = .success(try body($0)) },
                fail: { box.result = .failure($0) },
                finish: { batchError in
                    if let batchError {
                        continuation.resume(throwing: batchError.mappedForStore)
                    } else if let result = box.result {
                        continuation.resume(with: result.mapError { $0.mappedForStore })
                    } else {
                        continuation.resume(throwing: StoreError.internalFailure("write job did not run"))
                    }
                })
            if !queue.push(job) { continuation.resume(throwing: StoreError.closed) }
        }
    }

    /// Finishes the queued jobs, then ends the sessions; returns once they are done.
    func close() async {
        queue.stop()
        for latch in ended { await latch.wait() }
    }

    // MARK: A session's thread

    private func runSession() {
        var connection: PostgresConnection?
        while true {
            let taken = queue.take(upTo: configuration.maxBatch)
            if taken.isEmpty { return }
            // Unordered jobs first, in queue order; then the ordered ones by their key.
            let jobs = taken.filter { $0.order == nil }
                + taken.enumerated().filter { $0.element.order != nil }
                .sorted { ($0.element.order ?? 0, $0.offset) < ($1.element.order ?? 0, $1.offset) }.map(\.element)
            run(jobs, on: &connection)
        }
    }

    private func run(_ jobs: [Job], on connection: inout PostgresConnection?) {
        let started = DispatchTime.now().uptimeNanoseconds
        let startedCPU = WriterCounters.threadCPUTime()
        var commitStarted = started
        var attempt = 0
        // First without savepoints (two round trips per job saved); if a job fails, the
        // batch is undone and run again with a savepoint per job, so the failure is
        // undone alone.
        var guarded = false
        var outcome: (actions: [() -> Void], failure: (any Error)?)
        while true {
            outcome = ([], nil)
            do {
                let session = try usable(&connection)
                let batch = PostgresBatch()
                try session.executeScript("BEGIN")
                if guarded {
                    for job in jobs { try perform(job, in: batch, on: session) }
                } else if let failure = try runUnguarded(jobs, in: batch, on: session) {
                    rollBack(connection)
                    if jobs.count > 1 {
                        guarded = true
                        continue
                    }
                    // A batch of one: the job's failure is its answer, unless running it
                    // again can succeed.
                    if Self.runsAgain(failure), attempt < configuration.jobRetries {
                        attempt += 1
                        continue
                    }
                    jobs[0].fail(Self.answer(failure))
                    break
                }
                try beforeCommit(session, batch)
                commitStarted = DispatchTime.now().uptimeNanoseconds
                try commit(session)
                outcome.actions = batch.afterCommit
                break
            } catch let error as PostgresError where error.isRetryable && attempt < configuration.jobRetries {
                attempt += 1
                rollBack(connection)
            } catch {
                rollBack(connection)
                outcome.failure = error
                break
            }
        }
        for action in outcome.actions { action() }
        let ended = DispatchTime.now().uptimeNanoseconds
        counters.record(
            jobs: jobs.count, busyNanoseconds: ended - started, commitNanoseconds: ended - commitStarted,
            cpuNanoseconds: WriterCounters.threadCPUTime() - startedCPU)
        for job in jobs { job.finish(outcome.failure) }
    }

    /// Runs the jobs one after another in the open transaction; returns the first one's
    /// failure (then the transaction must be undone), throws when the connection broke.
    private func runUnguarded(_ jobs: [Job], in batch: PostgresBatch, on connection: PostgresConnection) throws
        -> (any Error)?
    {
        let context = PostgresWriteContext(connection: connection, batch: batch)
        for job in jobs {
            do {
                try job.run(context)
            } catch {
                guard connection.isConnected else { throw error }
                return error
            }
        }
        return nil
    }

    /// Runs one job in its own savepoint; throws only what fails the whole batch (a
    /// broken connection).
    private func perform(_ job: Job, in batch: PostgresBatch, on connection: PostgresConnection) throws {
        let context = PostgresWriteContext(connection: connection, batch: batch)
        var attempt = 0
        while true {
            let mark = batch.mark
            try connection.executeScript("SAVEPOINT job")
            do {
                try job.run(context)
                try connection.executeScript("RELEASE SAVEPOINT job")
                return
            } catch {
                batch.rollBack(to: mark)
                guard connection.isConnected else { throw error }
                try connection.executeScript("ROLLBACK TO SAVEPOINT job; RELEASE SAVEPOINT job")
                if Self.runsAgain(error), attempt < configuration.jobRetries {
                    attempt += 1
                    continue
                }
                job.fail(Self.answer(error))
                return
            }
        }
    }

    /// True for a failure that running the job again can mend: a lost deadlock or
    /// serialization conflict, or the job's own `RunAgain`.
    private static func runsAgain(_ error: any Error) -> Bool {
        error is RunAgain || (error as? PostgresError)?.isRetryable == true
    }

    /// What the caller of a job that failed for good is told.
    private static func answer(_ error: any Error) -> any Error {
        error is RunAgain ? StoreError.internalFailure("a write kept losing races; try again") : error
    }

    private func commit(_ connection: PostgresConnection) throws {
        do {
            try connection.executeScript("COMMIT")
        } catch var error as PostgresError where error.kind == .connectionLost {
            error.message += " (whether the batch committed is unknown)"
            throw error
        }
    }

    private func rollBack(_ connection: PostgresConnection?) {
        guard let connection, connection.isConnected, !connection.isIdle else { return }
        _ = try? connection.executeScript("ROLLBACK")
    }

    /// The session's connection, opened again when it broke.
    private func usable(_ connection: inout PostgresConnection?) throws -> PostgresConnection {
        if let open = connection, open.isReusable { return open }
        connection = nil
        let opened = try PostgresConnection(configuration: configuration.connection)
        connection = opened
        return opened
    }
}
