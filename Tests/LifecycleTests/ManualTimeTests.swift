import Lifecycle
import Testing

@Suite struct ManualTimeTests {
    @Test func advancingWakesSleepersWhoseDeadlinePassedInDeadlineOrder() async throws {
        let time = ManualTime()
        let order = Recorder<Int>()
        let start = time.elapsed
        async let late: Void = { try await time.sleep(until: start + .seconds(20)); order.add(20) }()
        async let early: Void = { try await time.sleep(until: start + .seconds(10)); order.add(10) }()
        await time.waitForSleepers(2)
        time.advance(by: .seconds(5))
        #expect(time.sleeperCount == 2)
        time.advance(by: .seconds(30))
        try await late
        try await early
        #expect(Set(order.values) == [10, 20])
        #expect(time.sleeperCount == 0)
        #expect(time.elapsed == start + .seconds(35))
    }

    @Test func aTestCanWaitForTheSleeperOfOnePeriodAmongOthers() async throws {
        let time = ManualTime()
        let other = Task { try await time.sleep(for: .milliseconds(500)) }
        await time.waitForSleepers(1)
        let waited = Task { await time.waitForSleeper(sleeping: .milliseconds(250)); return time.sleeperCount }
        let periodic = Task { try await time.sleep(for: .milliseconds(250)) }
        // Returns only once the sleeper it names sleeps, not on the one already there.
        #expect(await waited.value == 2)
        time.advance(by: .milliseconds(250))
        try await periodic.value
        #expect(time.sleeperCount == 1)
        other.cancel()
        _ = await other.result
    }

    @Test func aDeadlineAlreadyPastReturnsAtOnce() async throws {
        let time = ManualTime()
        try await time.sleep(until: time.elapsed - .seconds(1))
        try await time.sleep(for: .zero)
        #expect(time.sleeperCount == 0)
    }

    @Test func cancellingASleeperThrowsAndForgetsIt() async {
        let time = ManualTime()
        let sleeper = Task { try await time.sleep(for: .seconds(60)) }
        await time.waitForSleepers(1)
        sleeper.cancel()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(time.sleeperCount == 0)
    }

    @Test func aTaskCancelledBeforeItSleepsDoesNotWait() async {
        let time = ManualTime()
        let gate = Latch()
        let sleeper = Task {
            await gate.wait()
            try await time.sleep(for: .seconds(60))
        }
        sleeper.cancel()
        gate.open()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func theWallClockMovesWithMonotonicTimeAndCanBeSetAlone() {
        let time = ManualTime(wallMilliseconds: 1_000)
        time.advance(by: .milliseconds(1500))
        #expect(time.wallMilliseconds == 2_500)
        time.setWall(milliseconds: 10)
        #expect(time.wallMilliseconds == 10)
    }

    @Test func theClockAdapterSleepsOnTheSource() async throws {
        let time = ManualTime()
        let clock = time.clock
        let start = clock.now
        let sleeper = Task { try await clock.sleep(until: start.advanced(by: .seconds(3)), tolerance: nil) }
        await time.waitForSleepers(1)
        time.advance(by: .seconds(3))
        try await sleeper.value
        #expect(start.duration(to: clock.now) == .seconds(3))
    }

    @Test func durationsConvertToSecondsAndClampInsteadOfTrapping() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.seconds(clamping: -3) == .zero)
        #expect(Duration.seconds(clamping: .nan) == .zero)
        #expect(Duration.seconds(clamping: .infinity) == .zero)
        #expect(Duration.seconds(clamping: 1e300) > .seconds(3_000_000_000))
    }

    @Test func systemTimeMovesForwardAndSleeps() async throws {
        let time = SystemTime()
        let before = time.elapsed
        try await time.sleep(for: .milliseconds(1))
        #expect(time.elapsed > before)
        #expect(time.wallMilliseconds > 1_700_000_000_000)
    }
}

/// Values added from several tasks.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func add(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

import Synchronization
