import IMBots
import Lifecycle
import Testing

@Suite("Dead-man's switch")
struct DeadMansSwitchTests {
    @Test("fires once when the Watchdog stays away, recovers when it is back, re-arms on each arrival")
    func lifecycle() {
        let time = ManualTime()
        var deadman = DeadMansSwitch(interval: .seconds(600), now: time.wallMilliseconds)
        time.advance(by: .seconds(300))
        let arrived = deadman.observe(now: time.wallMilliseconds)
        #expect(arrived == nil)
        #expect(deadman.deadline == time.wallMilliseconds + 600_000, "re-armed")
        time.advance(by: .seconds(599))
        let early = deadman.check(now: time.wallMilliseconds)
        #expect(early == nil)
        time.advance(by: .seconds(1))
        let silentSince = time.wallMilliseconds - 600_000
        let fired = deadman.check(now: time.wallMilliseconds)
        #expect(fired == .fired(silentSince: silentSince))
        let again = deadman.check(now: time.wallMilliseconds + 1_000_000)
        #expect(again == nil, "fires once")
        #expect(deadman.deadline == nil)
        time.advance(by: .seconds(60))
        let back = deadman.observe(now: time.wallMilliseconds)
        #expect(back == .recovered(silentFor: .seconds(660)))
        #expect(!deadman.isFired)
        #expect(deadman.deadline == time.wallMilliseconds + 600_000)
    }

    @Test("a restart gives the path a full interval; a fired switch stays fired")
    func rearm() {
        var deadman = DeadMansSwitch(interval: .seconds(60), now: 0)
        deadman.rearm(now: 50_000)
        #expect(deadman.deadline == 110_000)
        #expect(deadman.check(now: 100_000) == nil)
        #expect(deadman.check(now: 110_000) == .fired(silentSince: 50_000))
        deadman.rearm(now: 200_000)
        #expect(deadman.isFired)
        #expect(deadman.observe(now: 230_000) == .recovered(silentFor: .seconds(180)))
    }
}
