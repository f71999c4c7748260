import IMProtocol
import Synchronization

/// Collects the feed events of the batch being written and tells the observers once it
/// has committed (`EventStore.observeFeeds`).
final class FeedNotifier: Sendable {
    private let observers = Mutex<[@Sendable (FeedUpdate) -> Void]>([])
    /// Events of the batch being built, from jobs that succeeded: reported once it commits.
    private let batch = Mutex(FeedUpdate())

    func observe(_ observer: @escaping @Sendable (FeedUpdate) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Adds a committed job's event to the batch's update (writer thread, after commit):
    /// whatever its number of recipients, an append.
    func add(_ entry: FeedEntry) {
        batch.withLock { $0.entries.append(entry) }
    }

    /// Ends a batch: what it added when it committed (nil when nothing), and forgets it
    /// either way.
    func finishBatch(committed: Bool) -> FeedUpdate? {
        let update = batch.withLock { update -> FeedUpdate in
            defer { update = FeedUpdate() }
            return update
        }
        guard committed, !update.entries.isEmpty else { return nil }
        return update
    }

    /// Tells every observer (on the writer thread: they must be short).
    func tell(_ update: FeedUpdate) {
        for observer in observers.withLock({ $0 }) { observer(update) }
    }
}
