import BenchSupport
import Foundation
import IMStore
import Lifecycle
import PostgresTestSupport
import Synchronization

/// How the listening side learns of a commit.
enum WakeMechanism: String, CaseIterable {
    /// `pg_notify` inside each writing transaction (delivered at its commit).
    case notify
    /// No wake-up at all: the write throughput without one.
    case none
    /// Each writer hands its commit to one notifier session per node, which sends one
    /// `pg_notify` for everything committed since its previous one, after the commits.
    case batched
    /// A session asks for rows after the last one it saw, every `--poll-ms`.
    case poll
}

/// Writers on a private cluster, a listener (or a poller) on another session, and the
/// record of when each commit was heard of.
struct WakeBench {
    let cluster: PostgresTestCluster
    let configuration: PostgresConfiguration
    let writers: Int
    let seconds: Double
    let pollInterval: Duration
    /// Commits per second across all writers; 0 for as fast as they can.
    let rate: Int

    /// A listener on `bench`, running until `body` returns; `heard` gets each payload.
    func listening<T>(_ heard: @escaping @Sendable (String) -> Void, _ body: () async throws -> T) async throws -> T {
        let listener = try PostgresListener(
            configuration: PostgresListener.Configuration(connection: configuration, channels: ["bench"]))
        let ready = Latch()
        listener.observe { wakeup in
            switch wakeup {
            case .mayHaveMissed: ready.open()
            case .notification(let notification): heard(notification.payload)
            }
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await listener.run() }
            defer { group.cancelAll() }
            await ready.wait()
            return try await body()
        }
    }

    /// One notification at a time, each sent when the previous one arrived: the latency
    /// with nothing else going on.
    func idle(samples: Int) async throws -> [Double] {
        let pool = PostgresPool(configuration: PostgresPool.Configuration(connection: configuration, maxConnections: 1))
        let latencies = Mutex<[Double]>([])
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        try await listening({ payload in
            let sent = UInt64(payload) ?? 0
            latencies.withLock { $0.append((Double(WakeRecord.now()) - Double(sent)) / 1e6) }
            arrived.yield()
        }) {
            var iterator = arrivals.makeAsyncIterator()
            for _ in 0..<samples {
                try await pool.withConnection { try $0.notify(channel: "bench", payload: String(WakeRecord.now())) }
                await iterator.next()
            }
        }
        await pool.close()
        return latencies.withLock { $0 }.sorted()
    }

    /// `writers` sessions writing one row per transaction for `seconds` (as fast as
    /// they can, or `rate` per second in all), the listening side woken by `mechanism`.
    func load(_ mechanism: WakeMechanism) async throws -> (WakeSummary, serverCPU: Double, benchCPU: Double) {
        let extra = mechanism == .batched || mechanism == .poll ? 1 : 0
        let pool = PostgresPool(
            configuration: PostgresPool.Configuration(connection: configuration, maxConnections: writers + extra))
        try await pool.withConnection { try $0.executeScript("TRUNCATE feed RESTART IDENTITY") }
        let record = WakeRecord()
        let queue = NotifyQueue()
        let heard: @Sendable (String) -> Void = { payload in record.woke(payload.split(separator: ",")) }
        let serverBefore = ProcessStats.treeCPUSeconds(root: cluster.serverPID)
        let benchBefore = ProcessStats.ownCPUSeconds
        let deadline = WakeRecord.now() + UInt64(seconds * 1e9)
        try await listening(heard) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        try await pool.withConnection { connection in
                            try write(connection, writer: writer, mechanism, record, queue, until: deadline)
                        }
                    }
                }
                if mechanism == .batched {
                    group.addTask { try await pool.withConnection { try queue.drain(into: $0, until: deadline) } }
                }
                if mechanism == .poll {
                    let interval = pollInterval
                    group.addTask { try await pool.withConnection { try poll($0, every: interval, record, until: deadline) } }
                }
                try await group.waitForAll()
            }
            // What is still in flight arrives within a few milliseconds.
            try await Task.sleep(for: .milliseconds(200))
        }
        let serverCPU = ProcessStats.treeCPUSeconds(root: cluster.serverPID) - serverBefore
        let benchCPU = ProcessStats.ownCPUSeconds - benchBefore
        await pool.close()
        return (record.summary(seconds: seconds), serverCPU, benchCPU)
    }

    /// One writer's loop, on its session's thread.
    private func write(
        _ connection: PostgresConnection, writer: Int, _ mechanism: WakeMechanism, _ record: WakeRecord,
        _ queue: NotifyQueue, until deadline: UInt64
    ) throws {
        var sequence = 0
        // At a set rate each writer takes every `writers`-th slot of one schedule.
        let interval = rate > 0 ? UInt64(1e9 / Double(rate)) * UInt64(writers) : 0
        var next = WakeRecord.now() + UInt64(writer) * (interval / UInt64(writers))
        while WakeRecord.now() < deadline {
            if interval > 0 {
                let now = WakeRecord.now()
                if now < next { usleep(UInt32((next - now) / 1000)) }
                next += interval
            }
            sequence += 1
            let key = "\(writer)-\(sequence)"
            let started = WakeRecord.now()
            try connection.transaction {
                try connection.execute("INSERT INTO feed (key) VALUES ($1)", key)
                if mechanism == .notify { try connection.notify(channel: "bench", payload: key) }
            }
            record.committed(key, started: started, ended: WakeRecord.now())
            if mechanism == .batched { queue.add(key) }
        }
    }

    /// The poller's loop: rows after the last id seen, every `interval`. A row whose id
    /// was taken before one already seen but committed after it is never seen: the
    /// skipping a reader of a plain sequence suffers.
    private func poll(_ connection: PostgresConnection, every interval: Duration, _ record: WakeRecord, until deadline: UInt64) throws {
        var last: Int64 = 0
        let micros = UInt32(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        while WakeRecord.now() < deadline + 100_000_000 {
            let rows = try connection.query("SELECT id, key FROM feed WHERE id > $1 ORDER BY id LIMIT 10000", last)
            let now = WakeRecord.now()
            var keys: [Substring] = []
            for row in rows {
                last = max(last, try row.int(0))
                keys.append(Substring(try row.text(1)))
            }
            record.woke(keys, at: now)
            usleep(micros)
        }
    }
}

/// Commits waiting to be announced by the batched notifier.
final class NotifyQueue: @unchecked Sendable {
    // @unchecked: `keys` is only touched while holding `condition`.
    private let condition = NSCondition()
    private var keys: [String] = []

    func add(_ key: String) {
        condition.lock()
        keys.append(key)
        condition.signal()
        condition.unlock()
    }

    /// The notifier's loop: waits for commits, then announces all of them in as few
    /// notifications as fit (a payload holds at most 8000 bytes).
    func drain(into connection: PostgresConnection, until deadline: UInt64) throws {
        while WakeRecord.now() < deadline + 100_000_000 {
            condition.lock()
            while keys.isEmpty && condition.wait(until: Date().addingTimeInterval(0.05)) {}
            let batch = keys
            keys = []
            condition.unlock()
            var payload = ""
            for key in batch {
                if payload.utf8.count + key.utf8.count > 7900 {
                    try connection.notify(channel: "bench", payload: payload)
                    payload = ""
                }
                payload += payload.isEmpty ? key : "," + key
            }
            if !payload.isEmpty { try connection.notify(channel: "bench", payload: payload) }
        }
    }
}
