import Lifecycle

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
actor WorkQueues<Item: Sendable> {
    /// What became of an offered item.
    struct Offer {
        /// Whether the item was queued.
        var accepted: Bool
        /// Items dropped to keep the cap: older ones to make room, or the offered one.
        var shed: [Item]
    }

    private var queues: [String: [Item]] = [:]
    /// Keys with a worker (started or about to be).
    private var working: Set<String> = []
    /// Keys whose first item a worker is handling now.
    private var inProgress: Set<String> = []
    private var toStart: [String] = []
    private let starts = Doorbell()
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
        var queue = queues[key] ?? []
        var shed: [Item] = []
        if queue.count >= max(1, capacity()) {
            let busy = inProgress.contains(key) ? 1 : 0
            if let index = queue.indices.dropFirst(busy).first(where: { sheddable(queue[$0]) }) {
                shed.append(queue.remove(at: index))
            } else {
                return Offer(accepted: false, shed: sheddable(item) ? [item] : [])
            }
        }
        queue.append(item)
        queues[key] = queue
        if working.insert(key).inserted {
            toStart.append(key)
            starts.ring()
        }
        return Offer(accepted: true, shed: shed)
    }

    /// Items queued now, in progress included.
    var count: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// Keys with a queue now.
    var keys: Set<String> { Set(queues.keys) }

    // MARK: Working

    private enum Event: Sendable {
        case starts, workerEnded, stopAsked, deadline
    }

    /// Works the queues until cancelled. Then, with a `drain` time, workers go on until
    /// their queues are empty or the time is up; without, they stop at once. Items not
    /// finished stay queued (and in whatever journal their owner keeps).
    ///
    /// - Parameter process: handles one item; false when it was interrupted and the
    ///   item must stay.
    nonisolated func run(drain: Duration?, time: any TimeSource,
                         process: @escaping @Sendable (Item) async -> Bool) async {
        let stopAsked = Latch()
        // Cancelling this task must not cancel the workers while they drain; the task is
        // awaited here and cancels itself at the deadline, so it never outlives the call.
        let work = Task { await self.work(drain: drain, time: time, stopAsked: stopAsked, process: process) }
        await withTaskCancellationHandler {
            await work.value
        } onCancel: {
            stopAsked.open()
        }
    }

    private nonisolated func work(drain: Duration?, time: any TimeSource, stopAsked: Latch,
                                  process: @escaping @Sendable (Item) async -> Bool) async {
        await withTaskGroup(of: Event.self) { group in
            group.addTask { [starts] in
                await starts.wait()
                return .starts
            }
            group.addTask {
                await stopAsked.wait()
                return .stopAsked
            }
            while let event = await group.next() {
                switch event {
                case .starts:
                    guard !group.isCancelled else { continue }
                    for key in await takeStarts() {
                        group.addTask {
                            await self.workOn(key, process)
                            return .workerEnded
                        }
                    }
                    group.addTask { [starts] in
                        await starts.wait()
                        return .starts
                    }
                case .workerEnded:
                    if stopAsked.isOpen, await working.isEmpty { group.cancelAll() }
                case .stopAsked:
                    guard let drain, await !working.isEmpty else {
                        group.cancelAll()
                        continue
                    }
                    group.addTask {
                        try? await time.sleep(for: drain)
                        return .deadline
                    }
                case .deadline:
                    group.cancelAll()
                }
            }
        }
    }

    private func takeStarts() -> [String] {
        defer { toStart = [] }
        return toStart
    }

    private nonisolated func workOn(_ key: String, _ process: @Sendable (Item) async -> Bool) async {
        while let item = await next(key) {
            let finished = await process(item)
            await settle(key, finished: finished)
            if !finished || Task.isCancelled {
                await stop(key)
                return
            }
        }
    }

    /// The item to work on; nil (and the key's worker ends) when its queue is empty.
    private func next(_ key: String) -> Item? {
        guard let item = queues[key]?.first else {
            queues[key] = nil
            working.remove(key)
            return nil
        }
        inProgress.insert(key)
        return item
    }

    private func settle(_ key: String, finished: Bool) {
        inProgress.remove(key)
        guard finished, var queue = queues[key], !queue.isEmpty else { return }
        queue.removeFirst()
        queues[key] = queue.isEmpty ? nil : queue
    }

    private func stop(_ key: String) {
        working.remove(key)
    }
}
