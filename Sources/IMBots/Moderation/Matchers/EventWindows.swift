import Synchronization

/// What a `rate` or `repeated` matcher counts: one counter of one rule's matcher for one
/// sender or conversation (and, for `repeated`, one text).
public struct WindowKey: Sendable, Hashable {
    /// The matcher: where it is written (`line:column`), unique in its file.
    let matcher: String
    /// The sender's username or the conversation's id.
    let subject: String
    /// A hash of the normalised text, for `repeated`; 0 for `rate`.
    let text: UInt64
}

/// One event counted by a `rate` or `repeated` matcher: the rule's other conditions held.
public struct WindowHit: Sendable, Hashable {
    let key: WindowKey
    /// The matcher's window, in milliseconds.
    let within: Int64
    /// How many of the latest times are worth keeping (the matcher needs no more).
    let keep: Int
}

/// The recent times of the events `rate` and `repeated` matchers counted, per counter.
///
/// Bounded: a counter keeps only as many times as its matcher can use, times older than
/// its window are dropped, and past `capacity` counters the ones idle longest go first
/// (a flood from many accounts costs the oldest counters, never unbounded memory). Kept
/// in memory only: after a restart counting starts over, which at worst lets a flood run
/// one window longer. The rule engine reads it (through `BotContext.windows`) and never
/// changes it; the runner records a decision's hits afterwards.
public final class EventWindows: Sendable {
    private struct Window {
        var times: [Int64]
        var within: Int64
    }

    private let windows = Mutex<[WindowKey: Window]>([:])
    private let capacity: Int

    /// An empty set of counters holding at most `capacity` of them.
    public init(capacity: Int = 50_000) {
        self.capacity = max(1, capacity)
    }

    /// How many counted events of `key` happened within `within` milliseconds before `now`.
    func count(_ key: WindowKey, within: Int64, now: Int64) -> Int {
        windows.withLock { windows in
            guard let window = windows[key] else { return 0 }
            return window.times.reduce(0) { $0 + ($1 > now - within && $1 <= now ? 1 : 0) }
        }
    }

    /// Counts the hits of one event at `now`.
    public func record(_ hits: [WindowHit], at now: Int64) {
        guard !hits.isEmpty else { return }
        windows.withLock { windows in
            for hit in hits {
                var window = windows.removeValue(forKey: hit.key) ?? Window(times: [], within: hit.within)
                window.within = hit.within
                window.times.append(now)
                window.times.removeAll { $0 <= now - hit.within }
                if window.times.count > hit.keep { window.times.removeFirst(window.times.count - hit.keep) }
                if windows.count >= capacity { Self.evict(&windows, now: now, capacity: capacity) }
                windows[hit.key] = window
            }
        }
    }

    /// The number of counters kept.
    public var size: Int { windows.withLock { $0.count } }

    /// Drops counters whose window has passed; then, if still full, the tenth idle longest.
    private static func evict(_ windows: inout [WindowKey: Window], now: Int64, capacity: Int) {
        windows = windows.filter { ($0.value.times.last ?? 0) > now - $0.value.within }
        guard windows.count >= capacity else { return }
        let idle = windows.sorted { ($0.value.times.last ?? 0) < ($1.value.times.last ?? 0) }
        for (key, _) in idle.prefix(max(1, capacity / 10)) { windows.removeValue(forKey: key) }
    }
}
