import IMProtocol
import Lifecycle
import Synchronization

/// A bot's send budgets (`limits:`): per conversation, per group and in total. A send
/// waits until every budget it falls under has room (its conversation's queue holds it
/// meanwhile, up to the queue's cap).
///
/// Alerts come first: while an alert waits for the total budget, other sends leave it
/// the next token (they wait until the alert has taken it, or a second after its turn,
/// should it have stopped waiting).
///
/// Buckets of conversations that have been quiet long enough to be full again are
/// dropped, so the table stays as small as the set of busy conversations.
final class SendBudget: Sendable {
    /// One budget: a sustained rate and the burst it allows.
    struct Limit: Sendable, Equatable {
        var perSecond: Double
        var burst: Double

        /// The budget of a rate (`20/min`), with a burst of its count.
        init(_ rate: Rate) {
            // A rate's count is at least 1 and its period longer than zero (checked when
            // the file loads); the clamps keep a hand-made one from dividing by zero.
            perSecond = max(rate.perSecond, 1e-9)
            burst = Double(max(1, rate.count))
        }
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
        var limit: Limit
    }

    private enum Key: Hashable {
        case total
        case conversation(String)
        case group(String)
    }

    private struct State {
        var buckets: [Key: Bucket] = [:]
        var lastPrune = 0.0
        /// When the total budget has a token for an alert that waits for it; 0: none waits.
        var alertTurn = 0.0
    }

    /// How long after its turn an alert's claim on the total budget lapses.
    static let alertGrace = 1.0

    private let total: Limit
    private let perConversation: Limit
    private let perGroup: Limit
    private let time: any TimeSource
    private let state = Mutex(State())

    init(_ limits: BotDefinition.Limits, time: any TimeSource) {
        total = Limit(limits.total)
        perConversation = Limit(limits.perConversation)
        perGroup = Limit(limits.perGroup)
        self.time = time
    }

    /// Takes one send for `address` if every budget has room now; otherwise takes
    /// nothing and returns how long to wait before asking again.
    func reserve(_ address: ConversationAddress, alert: Bool = false) -> Duration? {
        var limits: [(Key, Limit)] = [(.total, total), (.conversation(address.description), perConversation)]
        if case .group(let name) = address { limits.append((.group(name), perGroup)) }
        let now = time.seconds
        return state.withLock { state in
            if !alert, state.alertTurn > 0, now < state.alertTurn + Self.alertGrace {
                return .seconds(clamping: max(state.alertTurn - now, 0.05))
            }
            var wait = 0.0
            var refreshed: [(Key, Bucket)] = []
            for (key, limit) in limits {
                var bucket = state.buckets[key] ?? Bucket(tokens: limit.burst, updated: now, limit: limit)
                bucket.tokens = min(limit.burst, bucket.tokens + (now - bucket.updated) * limit.perSecond)
                bucket.updated = now
                if bucket.tokens < 1 {
                    let needed = (1 - bucket.tokens) / limit.perSecond
                    wait = max(wait, needed)
                    if alert, key == .total { state.alertTurn = max(state.alertTurn, now + needed) }
                }
                refreshed.append((key, bucket))
            }
            if alert, wait == 0 { state.alertTurn = 0 }
            for (key, var bucket) in refreshed {
                if wait == 0 { bucket.tokens -= 1 }
                state.buckets[key] = bucket
            }
            if now - state.lastPrune > 60 {
                state.lastPrune = now
                // A bucket that would be full by now is the same as no bucket.
                state.buckets = state.buckets.filter { _, bucket in
                    bucket.tokens + (now - bucket.updated) * bucket.limit.perSecond < bucket.limit.burst
                }
            }
            return wait == 0 ? nil : .seconds(clamping: wait)
        }
    }

    /// Buckets kept now (for tests of the pruning).
    var bucketCount: Int { state.withLock { $0.buckets.count } }
}
