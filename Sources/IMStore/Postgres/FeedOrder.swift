import Dispatch
import Synchronization

/// Tells a PostgreSQL store's feed observers of every committed range of positions, this
/// node's and the others', in position order.
///
/// Positions are handed out in commit order without gaps (the feed clock row), so the
/// node knows it has heard of everything up to `through` exactly when the ranges it heard
/// of join up. This node's own ranges come from its writer (`arrived`); the others' are
/// read from the tables (`caughtUp`), never taken from a notification, which only says
/// when to read. A range that arrives early (this node's commit, right after another
/// node's that was not read yet) waits until the gap before it is filled: an observer may
/// then rely, as with one SQLite writer, on each update holding every event after the
/// previous one (the event hub answers parked polls from it). A gap that is not filled
/// (notifications lost while the listener reconnected) is closed by `resync`.
final class FeedOrder: Sendable {
    private struct Pending {
        var last: Int64
        var update: FeedUpdate?
    }

    private struct State {
        /// Every range up to this position was told.
        var through: Int64 = 0
        /// The newest position heard of, told or waiting.
        var newest: Int64 = 0
        /// Ranges heard of early, by their first position.
        var waiting: [Int64: Pending] = [:]
        /// When the oldest waiting range arrived (monotonic nanoseconds).
        var waitingSince: UInt64?
    }

    private let state = Mutex(State())
    private let notifier: FeedNotifier

    init(notifier: FeedNotifier) { self.notifier = notifier }

    /// Starts after `position`: everything up to it was committed before this node listened.
    func start(after position: Int64) {
        state.withLock {
            $0.through = position
            $0.newest = position
        }
    }

    /// Every position up to this one has been told.
    var through: Int64 { state.withLock { $0.through } }

    /// The newest position heard of.
    var newest: Int64 { state.withLock { $0.newest } }

    /// How long the oldest range has waited for the gap before it, or nil.
    func waitingFor(now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Duration? {
        state.withLock { state in state.waitingSince.map { .nanoseconds(Int64(now &- $0)) } }
    }

    /// A committed range `first...last` and its update (nil when it fed no one); tells it
    /// and every waiting range it lets through, in order, on the calling thread. A range
    /// already told (an echo, or one a resync covered) is ignored.
    func arrived(first: Int64, last: Int64, _ update: FeedUpdate?) {
        state.withLock { state in
            guard last > state.through else { return }
            state.newest = max(state.newest, last)
            if first > state.through + 1 {
                if state.waiting.isEmpty { state.waitingSince = DispatchTime.now().uptimeNanoseconds }
                state.waiting[first] = Pending(last: last, update: update)
                return
            }
            tell(update, through: last, &state)
            drain(&state)
        }
    }

    /// Every commit up to `position` was read from the tables, with `entries` (in position
    /// order) the events after `through` that reached someone: tells them, except where
    /// this node's own ranges are waiting (their updates carry the messages), in order.
    func caughtUp(through position: Int64, entries: [FeedEntry]) {
        state.withLock { state in
            guard position > state.through else { return }
            state.newest = max(state.newest, position)
            var next = entries.startIndex
            while state.through < position {
                if let own = state.waiting.removeValue(forKey: state.through + 1) {
                    tell(own.update, through: own.last, &state)
                    continue
                }
                // Up to the next waiting range inside the read, or the end of the read.
                let end = (state.waiting.keys.filter { $0 > state.through && $0 <= position }.min() ?? position + 1) - 1
                while next < entries.endIndex, entries[next].position <= state.through { next += 1 }
                let start = next
                while next < entries.endIndex, entries[next].position <= end { next += 1 }
                tell(start == next ? nil : FeedUpdate(entries: Array(entries[start..<next])), through: end, &state)
            }
            drain(&state)
        }
    }

    /// After updates may have been lost: everything up to `position` counts as told, the
    /// observers hear that they may have missed some, and waiting ranges after it follow.
    func resync(through position: Int64) {
        state.withLock { state in
            let through = max(state.through, position)
            state.newest = max(state.newest, through)
            state.waiting = state.waiting.filter { $0.value.last > through }
            tell(FeedUpdate(missedThrough: through), through: through, &state)
            drain(&state)
        }
    }

    private func tell(_ update: FeedUpdate?, through last: Int64, _ state: inout State) {
        state.through = max(state.through, last)
        // Observers are short (the hub records positions and queues its wakes); telling
        // them under the lock keeps two threads from telling ranges out of order.
        if let update, !update.entries.isEmpty || update.missedThrough != nil { notifier.tell(update) }
    }

    private func drain(_ state: inout State) {
        while let next = state.waiting.removeValue(forKey: state.through + 1) {
            tell(next.update, through: next.last, &state)
        }
        state.waitingSince = state.waiting.isEmpty ? nil : state.waitingSince ?? DispatchTime.now().uptimeNanoseconds
    }
}
