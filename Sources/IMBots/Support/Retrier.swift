import IMClient
import Lifecycle

/// The runner's one retry loop: logins, sends and `http` actions all retry through it,
/// each with its own schedule and its own idea of what is worth another try.
///
/// The client core does not retry for the runner (its send retry is off), so a wait
/// happens in exactly one place, on the runner's clock: a `429` pauses only the part
/// that got it (one conversation's outbox, one bot's login).
struct Retrier: Sendable {
    /// What one attempt came to.
    enum Attempt<Outcome> {
        /// Done: success, or a failure that waiting will not heal.
        case finished(Outcome)
        /// Worth another try, after `after` (a server's `Retry-After`) or the backoff.
        case retry(Outcome, after: Duration?)
    }

    /// Attempts in total, the first included; nil tries until the task is cancelled.
    var attempts: Int?
    /// The waits between attempts when the server names none.
    var backoff: BackoffPolicy
    var time: any TimeSource
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// Runs `attempt` (numbered from 1) until it finishes, the attempts run out or the
    /// task is cancelled; returns the last outcome.
    func run<Outcome>(_ attempt: (Int) async -> Attempt<Outcome>) async -> Outcome {
        var number = 1
        while true {
            switch await attempt(number) {
            case .finished(let outcome):
                return outcome
            case .retry(let outcome, let after):
                if let attempts, number >= attempts { return outcome }
                let wait = after ?? backoff.delay(afterFailures: number, random: random())
                do {
                    try await time.sleep(for: wait)
                } catch {
                    return outcome
                }
                number += 1
            }
        }
    }
}

extension IMClientError {
    /// How long the server asked to wait, as a duration.
    var serverWait: Duration? { retryAfter.map { Duration.seconds(clamping: Double($0)) } }
}
