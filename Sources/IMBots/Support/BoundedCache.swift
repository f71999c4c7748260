/// A dictionary that forgets: entries older than `lifetime` are misses, and past
/// `capacity` entries the ones stored longest ago go first. Times are seconds on the
/// caller's clock.
struct BoundedCache<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var stored: Double
        /// The entry's place in `order`.
        var slot: Int
    }

    private var entries: [String: Entry] = [:]
    /// Keys in the order they were stored; a key stored again appears again, and only its
    /// latest place (its entry's `slot`) counts.
    private var order: [String] = []
    /// `order[0..<head]` was evicted or superseded; `base` is the slot of `order[0]`.
    private var head = 0
    private var base = 0
    let capacity: Int
    let lifetime: Double

    init(capacity: Int, lifetime: Double) {
        self.capacity = max(1, capacity)
        self.lifetime = lifetime
    }

    /// The value stored for `key` less than `lifetime` ago.
    func fresh(_ key: String, now: Double) -> Value? {
        guard let entry = entries[key], now - entry.stored < lifetime else { return nil }
        return entry.value
    }

    /// The value stored for `key`, however old.
    func any(_ key: String) -> Value? { entries[key]?.value }

    /// Stores `value` as of `now`, evicting the oldest entries beyond the capacity.
    mutating func store(_ value: Value, for key: String, at now: Double) {
        entries[key] = Entry(value: value, stored: now, slot: base + order.count)
        order.append(key)
        while entries.count > capacity, head < order.count {
            let oldest = order[head]
            if entries[oldest]?.slot == base + head { entries[oldest] = nil }
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            base += head
            head = 0
        }
    }

    /// Forgets `key`.
    mutating func remove(_ key: String) { entries[key] = nil }

    var count: Int { entries.count }
}
