/// How a request that is safe to repeat (a send with its `client_msg_id`) is retried.
///
/// Retried: transport failures that may or may not have reached the server, `429`
/// after its `Retry-After`, and `503`. Never retried: other error answers, cancellation.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, the first included; 1 means no retry.
    public var maxAttempts: Int
    /// The wait between attempts after a transport failure.
    public var backoff: BackoffPolicy
    /// The longest `Retry-After` worth waiting for inside the call; a longer one is
    /// thrown to the caller (as `RATE_LIMITED` with `retryAfter`) to schedule itself.
    public var maxRetryAfter: Duration

    /// Creates a policy; the defaults retry for roughly ten seconds of outage.
    public init(
        maxAttempts: Int = 5, backoff: BackoffPolicy = BackoffPolicy(base: .milliseconds(250), cap: .seconds(5)),
        maxRetryAfter: Duration = .seconds(60)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = backoff
        self.maxRetryAfter = maxRetryAfter
    }

    /// One attempt only.
    public static let never = RetryPolicy(maxAttempts: 1)
}
