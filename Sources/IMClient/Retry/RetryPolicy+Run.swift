/// The client core's one retry loop: the Switchboard client's sends and the Matrix
/// client's (`MatrixClient`) both retry through it, so a `429` or a server's wait
/// (`Retry-After`, Matrix's `retry_after_ms`) is honoured in one place.
extension RetryPolicy {
    /// Runs `attempt` until it succeeds, fails for good, or this policy runs out; waits
    /// with `sleep` (cancellation ends the loop with `CANCELLED`).
    public func run<T>(
        sleep: SleepFunction, random: RandomSource, _ attempt: () async throws(IMClientError) -> T
    ) async throws(IMClientError) -> T {
        var attempts = 0
        var failures = 0
        while true {
            attempts += 1
            do {
                return try await attempt()
            } catch {
                guard attempts < maxAttempts, let wait = retryWait(error, random: random, failures: &failures) else {
                    throw error
                }
                do {
                    try await sleep(wait)
                } catch {
                    throw IMClientError.cancelled
                }
            }
        }
    }

    /// How long to wait before retrying after `error`, or nil when it must not be retried.
    func retryWait(_ error: IMClientError, random: RandomSource, failures: inout Int) -> Duration? {
        switch error.code {
        case .unreachable where error.transport?.code != .cannotConnect:
            return nil  // a bad URL or TLS setup does not heal by waiting
        case .unreachable, .timedOut, .connectionLost:
            failures += 1
            return backoff.delay(afterFailures: failures, random: random())
        case .api(.rateLimited), .api(.unavailable):
            guard let seconds = error.retryAfter else {
                failures += 1
                return backoff.delay(afterFailures: failures, random: random())
            }
            let wait = Duration.seconds(max(0, seconds))
            return wait <= maxRetryAfter ? wait : nil
        default:
            return nil
        }
    }
}
