import IMBots
import Lifecycle
import Testing

@Suite("Dead-man's switch")
struct DeadMansSwitchTests {
    let watchdog = AlertFixtures.group([AlertInstance(status: .firing, labels: ["alertname": "Watchdog"])], key: "watchdog")

    @Test("fires once when the Watchdog stays away, recovers when it is back, re-arms on each arrival")
    func lifecycle() {
        let time = ManualTime()
        var deadman = DeadMansSwitch(interval: .seconds(600), now: time.wallMilliseconds)
        time.advance(by: .seconds(300))
        let arrived = deadman.observe(watchdog, now: time.wallMilliseconds)
        #expect(arrived == nil)
        #expect(deadman.deadline == time.wallMilliseconds + 600_000, "re-armed")
        time.advance(by: .seconds(599))
        let early = deadman.check(now: time.wallMilliseconds)
        #expect(early == nil)
        let other = deadman.observe(AlertFixtures.group([AlertFixtures.alert("db-1")]), now: time.wallMilliseconds)
        #expect(other == nil, "other alerts do not re-arm")
        time.advance(by: .seconds(1))
        let silentSince = time.wallMilliseconds - 600_000
        let fired = deadman.check(now: time.wallMilliseconds)
        #expect(fired == .fired(silentSince: silentSince))
        let again = deadman.check(now: time.wallMilliseconds + 1_000_000)
        #expect(again == nil, "fires once")
        #expect(deadman.deadline == nil)
        time.advance(by: .seconds(60))
        let back = deadman.observe(watchdog, now: time.wallMilliseconds)
        #expect(back == .recovered(silentFor: .seconds(660)))
        #expect(!deadman.isFired)
        #expect(deadman.deadline == time.wallMilliseconds + 600_000)
    }

    @Test("a resolved Watchdog does not count as alive")
    func resolvedWatchdog() {
        var deadman = DeadMansSwitch(interval: .seconds(60), now: 0)
        let resolved = AlertFixtures.group([AlertInstance(status: .resolved, labels: ["alertname": "Watchdog"])])
        let seen = deadman.observe(resolved, now: 30_000)
        #expect(seen == nil)
        let fired = deadman.check(now: 60_000)
        #expect(fired == .fired(silentSince: 0))
    }
}
