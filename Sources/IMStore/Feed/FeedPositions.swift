import Synchronization

/// The feed position counter that every event of every feed takes its position from:
/// handed out on the writer thread only, and saved with each batch so that a restart
/// never hands a position out twice.
final class FeedPositions: Sendable {
    /// The next position to hand out; advanced only on the writer thread.
    let next = Atomic<Int64>(1)
    /// The newest position whose batch has committed.
    let committed = Atomic<Int64>(0)
    /// The value of `next` last written to `meta`, so an idle batch writes nothing.
    private let persisted = Mutex<Int64>(1)

    /// Starts after the last position a previous run saved.
    func start(after last: Int64) {
        next.store(last + 1, ordering: .relaxed)
        committed.store(last, ordering: .releasing)
        persisted.withLock { $0 = last + 1 }
    }

    /// Hands out the next position (writer thread only). A job that throws after taking
    /// one leaves a gap, which no reader minds: positions only have to ascend.
    func issue() -> Int64 {
        let position = next.load(ordering: .relaxed)
        next.store(position + 1, ordering: .releasing)
        return position
    }

    /// Saves the counter with the batch (writer thread, before COMMIT).
    func persist(_ connection: SQLiteConnection) throws {
        let value = next.load(ordering: .relaxed)
        let changed = persisted.withLock { saved -> Bool in
            guard saved != value else { return false }
            saved = value
            return true
        }
        if changed {
            try connection.execute(
                "INSERT INTO meta (key, value) VALUES ('feed_position', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                String(value - 1))
        }
    }
}

extension Atomic where Value == Int64 {
    /// Raises the value to at least `value`.
    func max(_ value: Int64) {
        var current = load(ordering: .relaxed)
        while current < value {
            let (exchanged, original) = compareExchange(
                expected: current, desired: value, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }
}
