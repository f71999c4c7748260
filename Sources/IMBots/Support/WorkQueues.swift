import Lifecycle
import Synchronization

/// Work kept in one bounded queue per key (a conversation), each queue worked through
/// in order by a task of its own.
///
/// The queues of different keys never wait for each other, so a slow one (a
/// conversation paused by `429`, an `http` action that takes its time) holds up only
/// its own key. A queue and its worker exist only while it has items: the worker ends
/// when the queue is empty, so idle conversations cost nothing, not even a task.
///
/// A full queue sheds its oldest sheddable item (never the one in progress) to take a
/// new one; an item that may not be shed is refused when nothing can make room. Priority
/// items (alerts) go ahead of the waiting items that are not, behind earlier priority
/// items; an offer may replace a waiting item instead (a newer edit of the same message).
///
/// The workers are tasks of their own rather than children of a task group, so that
/// stopping can let them drain while the owner is cancelled; ``stop(drain:time:)``
/// cancels what is left and awaits every one of them, so none outlives it.
final class WorkQueues<Item: Sendable>: Sendable {
    /// What became of an offered item.
    struct Offer {
        /// Whether the item was queued.
        var accepted: Bool
        /// Items dropped to keep the cap: older ones to make room, or the offered one.
        var shed: [Item]
        /// The waiting item the offered one took the place of.
        var replaced: Item?
    }

    typealias Process = @Sendable (Item) async -> Bool

    /// A key's worker; its task is set just after it was made.
    private struct Worker {
        var id: Int
        var task: Task<Void, Never>?
    }

    private struct Queues {
        var items: [String: [Item]] = [:]
        /// The worker of each key that has one.
        var workers: [String: Worker] = [:]
        var nextWorker = 0
        /// Keys whose first item a worker is handling now.
        var inProgress: Set<String> = []
        /// Set between ``start(_:)`` and ``stop(drain:time:)``: offers start workers.
        var process: Process?
    }

    private let queues = Mutex(Queues())
    private let capacity: @Sendable () -> Int
    private let sheddable: @Sendable (Item) -> Bool
    private let priority: @Sendable (Item) -> Bool

    /// - Parameters:
    ///   - capacity: items per key, the one in progress included (read at each offer, so
    ///     a reload can change it).
    ///   - sheddable: which items a full queue may drop.
    ///   - priority: which items go ahead of the others.
    init(capacity: @escaping @Sendable () -> Int, sheddable: @escaping @Sendable (Item) -> Bool,
         priority: @escaping @Sendable (Item) -> Bool = { _ in false }) {
        self.capacity = capacity
        self.sheddable = sheddable
        self.priority = priority
    }

    /// Queues `item` under `key`, making room by shedding when the queue is full; when
    /// `replacing` picks a waiting item, `item` takes its place instead (the latest one).
    func offer(_ item: Item, key: String, replacing matches: ((Item) -> Bool)? = nil) -> Offer {
        let limit = max(1, capacity())
        let (offer, start) = queues.withLock { queues -> (Offer, Start?) in
            var queue = queues.items[key] ?? []
            let busy = queues.inProgress.contains(key) ? 1 : 0
            if let matches, let index = queue.indices.dropFirst(busy).last(where: { matches(queue[$0]) }) {
                let old = queue[index]
                queue[index] = item
                queues.items[key] = queue
                return (Offer(accepted: true, shed: [], replaced: old), nil)
            }
            var shed: [Item] = []
            if queue.count >= limit {
                if let index = queue.indices.dropFirst(busy).first(where: { sheddable(queue[$0]) }) {
                    shed.append(queue.remove(at: index))
                } else {
                    return (Offer(accepted: false, shed: sheddable(item) ? [item] : []), nil)
                }
            }
            if priority(item), let index = queue.indices.dropFirst(busy).first(where: { !priority(queue[$0]) }) {
                queue.insert(item, at: index)
            } else {
                queue.append(item)
            }
            queues.items[key] = queue
            return (Offer(accepted: true, shed: shed), reserveWorker(for: key, in: &queues))
        }
        if let start { launch(start) }
        return offer
    }

    /// Items queued now, in progress included.
    var count: Int { queues.withLock { $0.items.values.reduce(0) { $0 + $1.count } } }

    /// How many more items that may not be shed `key`'s queue takes now.
    func room(_ key: String) -> Int {
        let limit = max(1, capacity())
        return queues.withLock { queues in limit - (queues.items[key] ?? []).count { !sheddable($0) } }
    }

    /// Whether `key` has a queue now.
    func isBusy(_ key: String) -> Bool { queues.withLock { $0.items[key] != nil } }

    // MARK: Working

    /// Works the queues until cancelled, then stops them (see ``stop(drain:time:)``).
    func run(drain: Duration?, time: any TimeSource, process: @escaping Process) async {
        start(process)
        await Task.waitForCancellation()
        await stop(drain: drain, time: time)
    }

    /// Starts working: a worker for every queue that has items, and for every queue that
    /// gets some from now on.
    func start(_ process: @escaping Process) {
        let starts = queues.withLock { queues -> [Start] in
            queues.process = process
            return queues.items.keys.compactMap { reserveWorker(for: $0, in: &queues) }
        }
        for start in starts { launch(start) }
    }

    /// Stops working: with a `drain` time, workers go on until their queues are empty or
    /// the time is up; without, they stop at once. Items not finished stay queued (and in
    /// whatever journal their owner keeps). Returns when every worker has ended.
    func stop(drain: Duration?, time: any TimeSource) async {
        queues.withLock { $0.process = nil }
        var workers: [Task<Void, Never>] = []
        while true {
            let (tasks, launching) = queues.withLock { queues in
                (queues.workers.values.compactMap(\.task), queues.workers.values.contains { $0.task == nil })
            }
            workers = tasks
            // A worker made a moment ago gets its task set at once.
            guard launching else { break }
            await Task.yield()
        }
        guard !workers.isEmpty else { return }
        guard let drain else {
            for worker in workers { worker.cancel() }
            for worker in workers { await worker.value }
            return
        }
        // Awaited below and cancelled once the workers are done, so it never outlives this.
        let deadline = Task {
            try? await time.sleep(for: drain)
            for worker in workers { worker.cancel() }
        }
        // A task's value is awaited whether or not the caller is cancelled.
        for worker in workers { await worker.value }
        deadline.cancel()
        await deadline.value
    }

    /// A worker to make: for which key, with which id and what to do.
    private struct Start {
        var key: String
        var id: Int
        var process: Process
    }

    /// Lists a worker for `key` unless it has one, or working has not started.
    private func reserveWorker(for key: String, in queues: inout Queues) -> Start? {
        guard queues.workers[key] == nil, let process = queues.process else { return nil }
        queues.nextWorker += 1
        queues.workers[key] = Worker(id: queues.nextWorker, task: nil)
        return Start(key: key, id: queues.nextWorker, process: process)
    }

    /// Makes the worker's task, outside the lock: making a task can wake a thread, which
    /// would then find the lock taken (measured as lock waits on every reply).
    private func launch(_ start: Start) {
        let task = Task { [self] in await work(on: start.key, id: start.id, start.process) }
        queues.withLock { queues in
            if queues.workers[start.key]?.id == start.id { queues.workers[start.key]?.task = task }
        }
    }

    private func work(on key: String, id: Int, _ process: Process) async {
        while let item = next(key, id: id) {
            let finished = await process(item)
            settle(key, finished: finished)
            if !finished || Task.isCancelled {
                queues.withLock { queues in
                    if queues.workers[key]?.id == id { queues.workers[key] = nil }
                }
                return
            }
        }
    }

    /// The item to work on; nil (and the key's worker ends) when its queue is empty.
    private func next(_ key: String, id: Int) -> Item? {
        queues.withLock { queues -> Item? in
            guard let item = queues.items[key]?.first else {
                queues.items[key] = nil
                if queues.workers[key]?.id == id { queues.workers[key] = nil }
                return nil
            }
            queues.inProgress.insert(key)
            return item
        }
    }

    private func settle(_ key: String, finished: Bool) {
        queues.withLock { queues in
            queues.inProgress.remove(key)
            guard finished, var queue = queues.items[key], !queue.isEmpty else { return }
            queue.removeFirst()
            queues.items[key] = queue.isEmpty ? nil : queue
        }
    }
}
