import Lifecycle
import Synchronization

/// Token buckets by key: each key may spend `burst` at once and regains `rate` per second.
final class RateLimiter<Key: Hashable & Sendable>: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let buckets = Mutex<[Key: Bucket]>([:])
    private let time: any TimeSource

    init(time: any TimeSource) { self.time = time }

    /// Takes one token for `key`; nil when allowed, else the seconds until one is free.
    func acquire(_ key: Key, rate: Double, burst: Double) -> Double? {
        let now = time.seconds
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return rate > 0 ? (1 - bucket.tokens) / rate : 3600
        }
    }

    /// For a cost known only once the work is done (bytes served): nil while `key`'s
    /// bucket holds anything, else the seconds until it does again. Spends nothing;
    /// `charge` does, after the work.
    func waitBeforeSpending(_ key: Key, rate: Double, burst: Double) -> Double? {
        let now = time.seconds
        return buckets.withLock { buckets in
            guard let bucket = buckets[key] else { return nil }
            let tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
            if tokens > 0 { return nil }
            return rate > 0 ? (1 - tokens) / rate : 3600
        }
    }

    /// Takes `cost` from `key`'s bucket, which may go below zero: the next spending then
    /// waits until it is above it again.
    func charge(_ key: Key, cost: Double, rate: Double, burst: Double) {
        let now = time.seconds
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate) - cost
            bucket.updated = now
            buckets[key] = bucket
        }
    }

    /// Forgets buckets that have been full for a while, so memory stays bounded.
    func prune(idleFor seconds: Double) {
        let now = time.seconds
        buckets.withLock { buckets in
            buckets = buckets.filter { now - $0.value.updated < seconds }
        }
    }
}
