/// Which feed positions a bot has finished with, so a restart or a repeated delivery
/// never acts twice, and how far its cursor may be saved.
///
/// Events are pulled in feed order but finish out of order (each conversation has its
/// own queue). `handledThrough` is the highest position such that every event pulled at
/// or below it has finished; finished events above it are kept in `finishedAbove`.
struct DeliveryTracker: Sendable, Equatable {
    private(set) var handledThrough: Int64
    private(set) var finishedAbove: Set<Int64>
    private var unfinished: Set<Int64> = []
    private var pulledMax: Int64

    init(handledThrough: Int64 = 0, finishedAbove: Set<Int64> = []) {
        self.handledThrough = handledThrough
        self.finishedAbove = finishedAbove.filter { $0 > handledThrough }
        self.pulledMax = max(handledThrough, finishedAbove.max() ?? 0)
    }

    /// Records that the event at `position` was pulled; false when it was already
    /// handled (or is being handled) and must be skipped.
    mutating func pull(_ position: Int64) -> Bool {
        if position <= handledThrough || finishedAbove.contains(position) || unfinished.contains(position) {
            return false
        }
        unfinished.insert(position)
        pulledMax = max(pulledMax, position)
        return true
    }

    /// Records that the event at `position` is done (its actions finished or failed for
    /// good).
    mutating func finish(_ position: Int64) {
        guard unfinished.remove(position) != nil else { return }
        finishedAbove.insert(position)
        let through = unfinished.min().map { $0 - 1 } ?? pulledMax
        if through > handledThrough {
            handledThrough = through
            finishedAbove = finishedAbove.filter { $0 > through }
        }
    }

    /// The newest position pulled so far.
    var lastPulled: Int64 { pulledMax }

    /// True when nothing pulled is still running.
    var isIdle: Bool { unfinished.isEmpty }
}
