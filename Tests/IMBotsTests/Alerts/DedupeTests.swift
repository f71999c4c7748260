import Foundation
import IMBots
import IMProtocol
import Lifecycle
import Testing

@Suite("Dedupe")
struct DedupeTests {
    @Test("the HA twin of a notification has the same default key, whatever its alert order")
    func haTwin() throws {
        let key = try DedupeKey()
        let first = try WebhookFormat.alertmanager.decode(try AlertFixtures.body("alertmanager/firing.json"))
        var reordered = try #require(first.notification)
        reordered.alerts.reverse()
        reordered.receiver = "other-peer-receiver-name-does-not-matter"
        #expect(key.key(for: first) == key.key(for: .alerts(reordered, format: .alertmanager)))

        var oneMore = reordered
        oneMore.alerts.append(AlertFixtures.alert("db-11"))
        #expect(key.key(for: first) != key.key(for: .alerts(oneMore, format: .alertmanager)), "a changed set is new")

        let resolved = try WebhookFormat.alertmanager.decode(try AlertFixtures.body("alertmanager/resolved.json"))
        #expect(key.key(for: first) != key.key(for: resolved), "a changed status is new")
    }

    @Test("one alert resolving in a group still firing is new, and so is an alert that resolved firing again")
    func changesInsideTheGroup() throws {
        let key = try DedupeKey()
        let start = Timestamp(milliseconds: 1_767_603_600_000)
        func alert(_ name: String, _ status: AlertStatus, startedAt: Timestamp = start) -> AlertInstance {
            var alert = AlertFixtures.alert(name, status)
            alert.startsAt = startedAt
            return alert
        }
        let both = WebhookPayload.alerts(AlertFixtures.group([alert("a", .firing), alert("b", .firing)]), format: .alertmanager)
        let oneResolved = WebhookPayload.alerts(AlertFixtures.group([alert("a", .firing), alert("b", .resolved)]),
                                                format: .alertmanager)
        #expect(both.notification?.status == oneResolved.notification?.status, "still firing")
        #expect(key.key(for: both) != key.key(for: oneResolved))
        let first = WebhookPayload.alerts(AlertFixtures.group([alert("a", .firing)]), format: .alertmanager)
        let again = WebhookPayload.alerts(AlertFixtures.group([alert("a", .firing, startedAt: start.adding(seconds: 90))]),
                                          format: .alertmanager)
        #expect(key.key(for: first) != key.key(for: again), "fired, resolved, fired again: a flap to show")
    }

    @Test("a key's seen set admits the first copy and folds repeats until the key expires")
    func admit() throws {
        let time = ManualTime()
        let key = try DedupeKey(lifetime: .seconds(3600))
        var seen = SeenSet(lifetime: key.lifetime)
        let payload = try WebhookFormat.alertmanager.decode(try AlertFixtures.body("alertmanager/firing.json"))
        var verdicts: [Bool] = []
        verdicts.append(seen.insert(key.key(for: payload), now: time.wallMilliseconds))
        verdicts.append(seen.insert(key.key(for: payload), now: time.wallMilliseconds))
        time.advance(by: .seconds(3599))
        verdicts.append(seen.insert(key.key(for: payload), now: time.wallMilliseconds))
        time.advance(by: .seconds(1))
        verdicts.append(seen.insert(key.key(for: payload), now: time.wallMilliseconds))
        // First copy, its twin, a repeat just inside the hour (a repeat does not extend
        // the key's life), then once more after the key expired.
        #expect(verdicts == [true, false, false, true])
    }

    @Test("a custom key template renders against the payload")
    func customKey() throws {
        let key = try DedupeKey(source: "{{payload.build.id}}")
        let a = try WebhookFormat.json.decode(AlertFixtures.json(#"{"build":{"id":1,"try":1}}"#))
        let b = try WebhookFormat.json.decode(AlertFixtures.json(#"{"build":{"id":1,"try":2}}"#))
        let c = try WebhookFormat.json.decode(AlertFixtures.json(#"{"build":{"id":2}}"#))
        #expect(key.key(for: a) == key.key(for: b))
        #expect(key.key(for: a) != key.key(for: c))
        #expect(key.key(for: a).count == 64, "keys are hashed to a fixed size")
    }

    @Test("the seen-set is bounded: past its capacity the oldest key is forgotten and counted")
    func bounded() {
        var seen = SeenSet(lifetime: .seconds(60), capacity: 3)
        let fresh = ["a", "b", "c", "d"].map { seen.insert($0, now: 1000) }
        #expect(fresh == [true, true, true, true])
        #expect(seen.count == 3)
        #expect(seen.evictedEarly == 1)
        #expect(!seen.contains("a", now: 1000))
        #expect(seen.contains("d", now: 1000))
        let evictedAgain = seen.insert("a", now: 1000)
        #expect(evictedAgain, "an evicted key passes again")
    }

    @Test("expiry keeps memory flat over many keys, and the set survives a journal round trip")
    func expiryAndCodable() throws {
        var seen = SeenSet(lifetime: .seconds(10), capacity: 100)
        let inserted = (0..<10_000).filter { seen.insert("k\($0)", now: Int64($0) * 1000) }.count
        #expect(inserted == 10_000)
        #expect(seen.count == 10, "only the last 10 s of keys are alive")
        #expect(seen.evictedEarly == 0)
        let copy = try JSONDecoder().decode(SeenSet.self, from: try JSONEncoder().encode(seen))
        #expect(copy == seen)
        var restored = copy
        let repeated = restored.insert("k9999", now: 9_999_500)
        #expect(!repeated)
    }
}
