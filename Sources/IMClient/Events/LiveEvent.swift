import IMProtocol

/// One element of the live event stream.
public enum LiveEvent: Sendable, Equatable {
    /// An event of the user's feed. Handed over at least once, in feed order, never one
    /// whose position was handed over before (except `kicked_out`, which ends the stream).
    case event(Event)
    /// The server no longer knows the saved cursor (`410 CURSOR_EXPIRED`): events may have
    /// been missed. Reload conversations and recent history, then keep consuming; the
    /// stream already holds a fresh cursor taken before this element, so nothing that
    /// happens during the reload is lost.
    case resyncNeeded(reason: String)
    /// A poll failed and the stream will try again after `retryIn` (exponential backoff
    /// with jitter): for a "connection lost, retrying" state. Needs no action.
    case disconnected(IMClientError, retryIn: Duration)
    /// A poll succeeded again after `disconnected`.
    case reconnected

    /// The event, for `.event`; nil otherwise.
    public var event: Event? {
        if case .event(let event) = self { return event }
        return nil
    }
}

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
