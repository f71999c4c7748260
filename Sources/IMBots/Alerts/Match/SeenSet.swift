import Lifecycle
/// A bounded set of recently seen keys that forget themselves after a fixed time.
///
/// Every key lives for the same ``lifetime``, so insertion order is expiry order: the
/// oldest entries sit at the front of one queue and expire (or, when the set is full,
/// are evicted) from there in O(1) amortised time. Time is passed in (wall milliseconds
/// from an injected clock), and the whole set is `Codable` so a journal can keep it
/// across restarts.
public struct SeenSet: Sendable, Hashable, Codable {
    private struct Entry: Sendable, Hashable, Codable {
        var key: String
        var expires: Int64
    }

    /// How long a key is remembered.
    public let lifetime: Duration
    /// Keys kept at most; past it the oldest is forgotten early (counted in
    /// ``evictedEarly``).
    public let capacity: Int
    private var queue: [Entry] = []
    private var head = 0
    private var live: [String: Int64] = [:]
    /// Keys forgotten before their time because the set was full: a metric worth an alert
    /// of its own, since a repeat delivery of such a key would pass as new.
    public private(set) var evictedEarly = 0

    /// An empty set; `capacity` must be positive.
    public init(lifetime: Duration, capacity: Int = 10_000) {
        precondition(capacity > 0, "a seen-set needs room for at least one key")
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Keys remembered now (expired ones are dropped on the next insert).
    public var count: Int { live.count }

    /// Records `key` at `now`; true when it was not already remembered (the first
    /// delivery), false for a repeat within ``lifetime``. A repeat does not extend the
    /// key's life, so a notification repeated forever still passes once per lifetime.
    public mutating func insert(_ key: String, now: Int64) -> Bool {
        expire(now: now)
        if live[key] != nil { return false }
        while live.count >= capacity, head < queue.count {
            let oldest = queue[head]
            head += 1
            if live[oldest.key] == oldest.expires {
                live[oldest.key] = nil
                evictedEarly += 1
            }
        }
        let expires = now + Int64(lifetime.seconds * 1000)
        queue.append(Entry(key: key, expires: expires))
        live[key] = expires
        compact()
        return true
    }

    /// Whether `key` is remembered at `now`.
    public func contains(_ key: String, now: Int64) -> Bool {
        guard let expires = live[key] else { return false }
        return expires > now
    }

    /// Forgets every key whose time has come.
    public mutating func expire(now: Int64) {
        while head < queue.count, queue[head].expires <= now {
            let entry = queue[head]
            if live[entry.key] == entry.expires { live[entry.key] = nil }
            head += 1
        }
        compact()
    }

    private mutating func compact() {
        if head > 64, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }
}
