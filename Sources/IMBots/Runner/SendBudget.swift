import IMProtocol
import Synchronization

/// A bot's send budgets (`limits:`): per conversation, per group and in total. A send
/// waits until every budget it falls under has room: messages are queued, never dropped.
final class SendBudget: Sendable {
    /// One budget: a sustained rate and the burst it allows.
    struct Limit: Sendable, Equatable {
        var perSecond: Double
        var burst: Double
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private enum Key: Hashable {
        case total
        case conversation(String)
        case group(String)
    }

    private let total: Limit?
    private let perConversation: Limit?
    private let perGroup: Limit?
    private let clock: @Sendable () -> Double
    private let buckets = Mutex<[Key: Bucket]>([:])

    init(total: Limit?, perConversation: Limit?, perGroup: Limit?, clock: @escaping @Sendable () -> Double) {
        self.total = total
        self.perConversation = perConversation
        self.perGroup = perGroup
        self.clock = clock
    }

    /// Takes one send for `address` if every budget has room now; otherwise takes
    /// nothing and returns the seconds to wait before asking again.
    func reserve(_ address: ConversationAddress) -> Double? {
        var limits: [(Key, Limit)] = []
        if let total { limits.append((.total, total)) }
        if let perConversation { limits.append((.conversation(address.description), perConversation)) }
        if let perGroup, case .group(let name) = address { limits.append((.group(name), perGroup)) }
        guard !limits.isEmpty else { return nil }
        let now = clock()
        return buckets.withLock { buckets in
            var wait = 0.0
            var refreshed: [(Key, Bucket)] = []
            for (key, limit) in limits {
                var bucket = buckets[key] ?? Bucket(tokens: limit.burst, updated: now)
                bucket.tokens = min(limit.burst, bucket.tokens + (now - bucket.updated) * limit.perSecond)
                bucket.updated = now
                if bucket.tokens < 1 { wait = max(wait, (1 - bucket.tokens) / limit.perSecond) }
                refreshed.append((key, bucket))
            }
            for (key, var bucket) in refreshed {
                if wait == 0 { bucket.tokens -= 1 }
                buckets[key] = bucket
            }
            return wait == 0 ? nil : wait
        }
    }
}

/// Caps how many messages a bot sends into one conversation per minute, so two bots
/// answering each other cannot loop forever.
final class LoopGuard: Sendable {
    private let maxPerMinute: Int
    private let clock: @Sendable () -> Double
    private let sent = Mutex<[String: [Double]]>([:])

    init(maxPerMinute: Int, clock: @escaping @Sendable () -> Double) {
        self.maxPerMinute = maxPerMinute
        self.clock = clock
    }

    /// Counts a send into `address`; false when the cap for the last minute is reached
    /// (the send must be suppressed).
    func allow(_ address: ConversationAddress) -> Bool {
        let now = clock()
        return sent.withLock { sent in
            var times = sent[address.description, default: []].filter { now - $0 < 60 }
            guard times.count < maxPerMinute else {
                sent[address.description] = times
                return false
            }
            times.append(now)
            sent[address.description] = times
            return true
        }
    }
}
