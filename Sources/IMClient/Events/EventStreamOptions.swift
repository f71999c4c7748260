/// How an event stream polls and reconnects.
public struct EventStreamOptions: Sendable {
    /// Seconds the server may park one poll (0...50; the server caps it).
    public var pollTimeout: Int
    /// Most events per poll (1...1000).
    public var limit: Int
    /// Waits between reconnect attempts; reset after a successful poll.
    public var backoff: BackoffPolicy
    /// How the stream waits (backoff, `Retry-After`); injected by tests.
    public var sleep: SleepFunction
    /// The random numbers behind the backoff's jitter.
    public var random: RandomSource
    /// A monotonic clock: time since any fixed origin. Used to notice a server that
    /// answers polls with nothing at once instead of parking them (e.g. while it shuts
    /// down), so the stream paces itself instead of spinning.
    public var monotonic: MonotonicTime

    /// Creates options; the defaults suit people and bots alike.
    public init(
        pollTimeout: Int = 30, limit: Int = 100, backoff: BackoffPolicy = BackoffPolicy(),
        sleep: @escaping SleepFunction = systemSleep, random: @escaping RandomSource = systemRandom,
        monotonic: @escaping MonotonicTime = systemMonotonicTime
    ) {
        self.pollTimeout = min(max(pollTimeout, 0), 50)
        self.limit = min(max(limit, 1), 1000)
        self.backoff = backoff
        self.sleep = sleep
        self.random = random
        self.monotonic = monotonic
    }
}
