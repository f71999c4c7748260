/// Exponential backoff with jitter: how long to wait after the n-th failure in a row.
///
/// The delay doubles from `base` up to `cap`; `jitter` takes a random share off it so
/// that many clients dropped by one server restart do not reconnect in lockstep.
public struct BackoffPolicy: Sendable, Hashable {
    /// The wait after the first failure (before jitter).
    public var base: Duration
    /// The longest wait.
    public var cap: Duration
    /// The growth per further failure.
    public var multiplier: Double
    /// The share of the delay that is random, 0...1: the wait lies in
    /// `delay * (1 - jitter) ... delay`.
    public var jitter: Double

    /// Creates a policy; the defaults suit reconnecting a long-poll.
    public init(
        base: Duration = .milliseconds(250), cap: Duration = .seconds(30), multiplier: Double = 2,
        jitter: Double = 0.5
    ) {
        self.base = base
        self.cap = cap
        self.multiplier = max(1, multiplier)
        self.jitter = min(1, max(0, jitter))
    }

    /// The wait after `failures` failures in a row (1 for the first), given a random
    /// number in `0..<1`.
    public func delay(afterFailures failures: Int, random: Double) -> Duration {
        let baseSeconds = base.seconds
        let capSeconds = max(cap.seconds, 0)
        // Grow in floating point but stop early: 2^1000 would be infinite.
        var delay = baseSeconds
        var step = 1
        while step < failures, delay < capSeconds {
            delay *= multiplier
            step += 1
        }
        delay = min(delay, capSeconds)
        let unit = min(max(random, 0), 1)
        let waited = delay * (1 - jitter) + delay * jitter * unit
        return .milliseconds(Int64((waited * 1000).rounded()))
    }

    /// No waiting at all (tests that only count attempts).
    public static let immediate = BackoffPolicy(base: .zero, cap: .zero, jitter: 0)
}

extension Duration {
    /// This duration in seconds as a floating-point number.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
