import Lifecycle
import Synchronization

/// Work kept in one bounded queue per key (a conversation), each queue worked through
/// in order by a task of its own, all of them children of one task group in ``run``.
///
/// The queues of different keys never wait for each other, so a slow one (a
/// conversation paused by `429`, an `http` action that takes its time) holds up only
/// its own key. A queue exists only while it has items: its worker ends when it is
/// empty, so idle conversations cost nothing.
///
/// A full queue sheds its oldest sheddable item (never the one in progress) to take a
/// new one; an item that may not be shed is refused when nothing can make room.
final class WorkQueues<Item: Sendable>: Sendable {
    /// What became of an offered item.
    struct Offer {
        /// Whether the item was queued.
        var accepted: Bool
        /// Items dropped to keep the cap: older ones to make room, or the offered one.
        var shed: [Item]
    }

    private struct Queues {
        var items: [String: [Item]] = [:]
        /// Keys with a worker (started or about to be).
        var working: Set<String> = []
        /// Keys whose first item a worker is handling now.
        var inProgress: Set<String> = []
        var toStart: [String] = []
        /// Set when the owner stops: workers finish their queues (or are cancelled).
        var stopping = false
        /// Set when the drain's time is up.
        var deadlinePassed = false
    }

    private let queues = Mutex(Queues())
    /// Rung for keys to start, and for every worker that ends while stopping.
    private let changes = Doorbell()
    private let capacity: @Sendable () -> Int
    private let sheddable: @Sendable (Item) -> Bool

    /// - Parameters:
    ///   - capacity: items per key, the one in progress included (read at each offer, so
    ///     a reload can change it).
    ///   - sheddable: which items a full queue may drop.
    init(capacity: @escaping @Sendable () -> Int, sheddable: @escaping @Sendable (Item) -> Bool) {
        self.capacity = capacity
        self.sheddable = sheddable
    }

    /// Queues `item` under `key`, making room by shedding when the queue is full.
    func offer(_ item: Item, key: String) -> Offer {
        let limit = max(1, capacity())
        let (offer, ring) = queues.withLock { queues -> (Offer, Bool) in
            var queue = queues.items[key] ?? []
            var shed: [Item] = []
            if queue.count >= limit {
                let busy = queues.inProgress.contains(key) ? 1 : 0
                if let index = queue.indices.dropFirst(busy).first(where: { sheddable(queue[$0]) }) {
                    shed.append(queue.remove(at: index))
                } else {
                    return (Offer(accepted: false, shed: sheddable(item) ? [item] : []), false)
                }
            }
            queue.append(item)
            queues.items[key] = queue
            guard queues.working.insert(key).inserted else { return (Offer(accepted: true, shed: shed), false) }
            queues.toStart.append(key)
            return (Offer(accepted: true, shed: shed), true)
        }
        if ring { changes.ring() }
        return offer
    }

    /// Items queued now, in progress included.
    var count: Int { queues.withLock { $0.items.values.reduce(0) { $0 + $1.count } } }

    /// Whether `key` has a queue now.
    func isBusy(_ key: String) -> Bool { queues.withLock { $0.items[key] != nil } }

    // MARK: Working

    /// Works the queues until cancelled. Then, with a `drain` time, workers go on until
    /// their queues are empty or the time is up; without, they stop at once. Items not
    /// finished stay queued (and in whatever journal their owner keeps).
    ///
    /// - Parameter process: handles one item; false when it was interrupted and the
    ///   item must stay.
    func run(drain: Duration?, time: any TimeSource, process: @escaping @Sendable (Item) async -> Bool) async {
        guard let drain else {
            // Cancelling this task cancels the workers with it.
            await work(drain: nil, time: time, process)
            return
        }
        // Cancelling this task must not cancel the workers while they drain: they run in a
        // task of their own, awaited here, which ends at the latest when the drain's time
        // is up, so it never outlives the call.
        let work = Task { await self.work(drain: drain, time: time, process) }
        await withTaskCancellationHandler {
            await work.value
        } onCancel: {
            queues.withLock { $0.stopping = true }
            changes.ring()
        }
    }

    private func work(drain: Duration?, time: any TimeSource, _ process: @escaping @Sendable (Item) async -> Bool) async {
        await withTaskGroup(of: Void.self) { group in
            var deadlineSet = false
            while true {
                await changes.wait()
                let (keys, stopping, idle, late) = queues.withLock { queues -> ([String], Bool, Bool, Bool) in
                    defer { queues.toStart = [] }
                    return (queues.toStart, queues.stopping, queues.working.isEmpty, queues.deadlinePassed)
                }
                if Task.isCancelled || late || (stopping && idle) { break }
                for key in keys {
                    group.addTask { await self.workOn(key, process) }
                }
                if stopping, !deadlineSet, let drain {
                    deadlineSet = true
                    group.addTask {
                        try? await time.sleep(for: drain)
                        self.queues.withLock { $0.deadlinePassed = true }
                        self.changes.ring()
                    }
                }
            }
            group.cancelAll()
        }
    }

    private func workOn(_ key: String, _ process: @Sendable (Item) async -> Bool) async {
        while let item = next(key) {
            let finished = await process(item)
            settle(key, finished: finished)
            if !finished || Task.isCancelled {
                stop(key)
                return
            }
        }
    }

    /// The item to work on; nil (and the key's worker ends) when its queue is empty.
    private func next(_ key: String) -> Item? {
        let (item, ended) = queues.withLock { queues -> (Item?, Bool) in
            guard let item = queues.items[key]?.first else {
                queues.items[key] = nil
                queues.working.remove(key)
                return (nil, queues.stopping)
            }
            queues.inProgress.insert(key)
            return (item, false)
        }
        if ended { changes.ring() }
        return item
    }

    private func settle(_ key: String, finished: Bool) {
        queues.withLock { queues in
            queues.inProgress.remove(key)
            guard finished, var queue = queues.items[key], !queue.isEmpty else { return }
            queue.removeFirst()
            queues.items[key] = queue.isEmpty ? nil : queue
        }
    }

    private func stop(_ key: String) {
        let stopping = queues.withLock { queues -> Bool in
            queues.working.remove(key)
            return queues.stopping
        }
        if stopping { changes.ring() }
    }
}
