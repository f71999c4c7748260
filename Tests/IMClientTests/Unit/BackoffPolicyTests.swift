import IMClient
import Testing

@Suite("BackoffPolicy")
struct BackoffPolicyTests {
    @Test func delaysDoubleFromTheBaseUpToTheCap() {
        let policy = BackoffPolicy(base: .milliseconds(250), cap: .seconds(30), jitter: 0)

        let delays = (1...10).map { policy.delay(afterFailures: $0, random: 0.5) }

        #expect(delays == [
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
            .seconds(30), .seconds(30), .seconds(30),
        ])
    }

    @Test func jitterTakesARandomShareOffTheDelay() {
        let policy = BackoffPolicy(base: .seconds(2), cap: .seconds(30), jitter: 0.5)

        #expect(policy.delay(afterFailures: 1, random: 0) == .seconds(1))
        #expect(policy.delay(afterFailures: 1, random: 0.5) == .milliseconds(1500))
        #expect(policy.delay(afterFailures: 1, random: 0.999_999) == .seconds(2))
    }

    @Test func hugeFailureCountsStayAtTheCap() {
        let policy = BackoffPolicy()

        #expect(policy.delay(afterFailures: 10_000, random: 1) == .seconds(30))
        #expect(policy.delay(afterFailures: Int.max, random: 1) == .seconds(30))
    }

    @Test func outOfRangeSettingsAreClamped() {
        let policy = BackoffPolicy(base: .seconds(1), cap: .seconds(8), multiplier: 0.1, jitter: 7)

        #expect(policy.multiplier == 1)
        #expect(policy.jitter == 1)
        #expect(policy.delay(afterFailures: 3, random: 2) == .seconds(1))
        #expect(BackoffPolicy.immediate.delay(afterFailures: 5, random: 1) == .zero)
    }
}
