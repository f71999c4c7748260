import Foundation
import IMBots
import IMProtocol
import Lifecycle
import Testing

@Suite("Incidents: one living message per alert group")
struct IncidentTests {
    typealias F = AlertFixtures

    func tracker(hold: Duration = .seconds(300)) -> IncidentTracker {
        IncidentTracker(policy: IncidentPolicy(flapHold: hold))
    }

    /// Posts the first message and records its id, as the runner does.
    func opened(_ tracker: inout IncidentTracker, _ time: ManualTime, id: Int64 = 42) throws {
        let effects = tracker.receive(F.group([F.alert("db-7"), F.alert("db-9")]), now: time.wallMilliseconds)
        #expect(effects.count == 1)
        guard case .post(let key, _, let text)? = effects.first else {
            Issue.record("expected a post, got \(effects)")
            return
        }
        #expect(text.hasPrefix("🔥 FIRING: DiskFull"))
        #expect(text.contains("2 firing · 0 resolved"))
        #expect(text.contains("• db-7: disk full on db-7"))
        tracker.recordPosted(groupKey: key, messageID: MessageID(rawValue: id))
    }

    @Test("the first firing notification posts; the same again changes nothing")
    func firstPost() throws {
        let time = ManualTime()
        var tracker = tracker()
        try opened(&tracker, time)
        let repeated = tracker.receive(F.group([F.alert("db-9"), F.alert("db-7")]), now: time.wallMilliseconds)
        #expect(repeated.isEmpty)
    }

    @Test("a post not yet recorded is posted again with the same idempotency key")
    func postUntilRecorded() {
        let time = ManualTime()
        var tracker = tracker()
        let first = tracker.receive(F.group([F.alert("db-7")]), now: time.wallMilliseconds)
        time.advance(by: .seconds(30))
        let second = tracker.receive(F.group([F.alert("db-7"), F.alert("db-9")]), now: time.wallMilliseconds)
        guard case .post(_, let firstKey, _)? = first.first, case .post(_, let secondKey, let text)? = second.first else {
            Issue.record("expected two posts: \(first) \(second)")
            return
        }
        #expect(firstKey == secondKey)
        #expect(text.contains("db-9"))
        #expect(second.contains(.reply(groupKey: F.group([]).groupKey, to: nil, text: "🔥 1 new: db-9")))
    }

    @Test("a new alert in the group edits the message and replies once")
    func newAlert() throws {
        let time = ManualTime()
        var tracker = tracker()
        try opened(&tracker, time)
        let effects = tracker.receive(F.group([F.alert("db-7"), F.alert("db-9"), F.alert("db-11")]), now: time.wallMilliseconds)
        #expect(effects.count == 2)
        guard case .edit(_, let id, let text)? = effects.first else { Issue.record("\(effects)"); return }
        #expect(id == MessageID(rawValue: 42))
        #expect(text.contains("3 firing"))
        #expect(effects.last == .reply(groupKey: F.group([]).groupKey, to: MessageID(rawValue: 42), text: "🔥 1 new: db-11"))
    }

    @Test("a resolve is held for the flap hold, then shown with a reply")
    func heldResolve() throws {
        let time = ManualTime()
        var tracker = tracker(hold: .seconds(300))
        try opened(&tracker, time)
        let resolvedAt = time.wallMilliseconds
        let held = tracker.receive(F.group([F.alert("db-7", .resolved), F.alert("db-9", .resolved)]), now: resolvedAt)
        #expect(held.isEmpty, "held: nothing visible yet")
        #expect(tracker.nextDeadline == resolvedAt + 300_000)
        time.advance(by: .seconds(299))
        let early = tracker.advance(now: time.wallMilliseconds)
        #expect(early.isEmpty)
        time.advance(by: .seconds(1))
        let effects = tracker.advance(now: time.wallMilliseconds)
        guard case .edit(_, _, let text)? = effects.first else { Issue.record("\(effects)"); return }
        #expect(text.hasPrefix("✅ RESOLVED: DiskFull"))
        #expect(text.contains("0 firing · 2 resolved"))
        #expect(text.contains("✓ db-7"))
        #expect(effects.last == .reply(groupKey: F.group([]).groupKey, to: MessageID(rawValue: 42), text: "✅ all resolved: DiskFull"))
        #expect(tracker.nextDeadline == nil)
    }

    @Test("firing again within the hold folds into the same message with a flap count and no reply")
    func flap() throws {
        let time = ManualTime()
        var tracker = tracker(hold: .seconds(300))
        try opened(&tracker, time)
        _ = tracker.receive(F.group([F.alert("db-7", .resolved), F.alert("db-9")]), now: time.wallMilliseconds)
        time.advance(by: .seconds(120))
        let effects = tracker.receive(F.group([F.alert("db-7"), F.alert("db-9")]), now: time.wallMilliseconds)
        #expect(effects.count == 1, "an edit, no reply: \(effects)")
        guard case .edit(_, _, let text)? = effects.first else { Issue.record("\(effects)"); return }
        #expect(text.contains("flapped 1×"))
        #expect(text.contains("2 firing"))
        time.advance(by: .seconds(600))
        let later = tracker.advance(now: time.wallMilliseconds)
        #expect(later.isEmpty, "the cancelled resolve never shows")
        #expect(tracker.book.incidents.values.first?.flapCount == 1)
    }

    @Test("without a hold a partial resolve is shown at once")
    func partialResolveNoHold() throws {
        let time = ManualTime()
        var tracker = tracker(hold: .zero)
        try opened(&tracker, time)
        let effects = tracker.receive(F.group([F.alert("db-7", .resolved), F.alert("db-9")]), now: time.wallMilliseconds)
        #expect(effects.count == 2)
        #expect(effects.last == .reply(groupKey: F.group([]).groupKey, to: MessageID(rawValue: 42), text: "✅ resolved: db-7"))
    }

    @Test("a closed group that fires again opens a new incident and message")
    func reopen() throws {
        let time = ManualTime()
        var tracker = tracker(hold: .zero)
        try opened(&tracker, time)
        _ = tracker.receive(F.group([F.alert("db-7", .resolved), F.alert("db-9", .resolved)]), now: time.wallMilliseconds)
        time.advance(by: .seconds(3600))
        let effects = tracker.receive(F.group([F.alert("db-7")]), now: time.wallMilliseconds)
        guard case .post(_, let key, _)? = effects.first else { Issue.record("\(effects)"); return }
        #expect(!key.isEmpty)
    }

    @Test("a resolve for a group never seen firing shows nothing")
    func unknownResolve() {
        var tracker = tracker()
        let effects = tracker.receive(F.group([F.alert("db-7", .resolved)]), now: 1)
        #expect(effects.isEmpty)
        #expect(tracker.book.incidents.isEmpty)
    }

    @Test("/ack edits the message once per user; an unknown message is nil")
    func acknowledge() throws {
        let time = ManualTime()
        var tracker = tracker()
        try opened(&tracker, time)
        let acknowledged = tracker.acknowledge(messageID: MessageID(rawValue: 42), by: "alice", now: time.wallMilliseconds)
        let effects = try #require(acknowledged)
        guard case .edit(_, _, let text)? = effects.first else { Issue.record("\(effects)"); return }
        #expect(text.contains("acknowledged by alice"))
        let twice = tracker.acknowledge(messageID: MessageID(rawValue: 42), by: "alice", now: time.wallMilliseconds)
        #expect(twice == [])
        let unknown = tracker.acknowledge(messageID: MessageID(rawValue: 7), by: "alice", now: time.wallMilliseconds)
        #expect(unknown == nil)
    }

    @Test("the book survives a journal round trip, message id, holds and all")
    func codable() throws {
        let time = ManualTime()
        var tracker = tracker()
        try opened(&tracker, time)
        _ = tracker.receive(F.group([F.alert("db-7", .resolved), F.alert("db-9")]), now: time.wallMilliseconds)
        let data = try JSONEncoder().encode(tracker.book)
        var restored = IncidentTracker(policy: tracker.policy, book: try JSONDecoder().decode(IncidentBook.self, from: data))
        #expect(restored.book == tracker.book)
        time.advance(by: .seconds(300))
        let effects = restored.advance(now: time.wallMilliseconds)
        #expect(effects.last == .reply(groupKey: F.group([]).groupKey, to: MessageID(rawValue: 42), text: "✅ resolved: db-7"))
    }

    @Test("the number of open incidents is bounded")
    func boundedBook() {
        var tracker = IncidentTracker(policy: IncidentPolicy(maxIncidents: 3))
        for index in 0..<10 {
            _ = tracker.receive(F.group([F.alert("db-\(index)")], key: "group-\(index)"), now: Int64(index))
        }
        #expect(tracker.book.incidents.count == 3)
        #expect(Set(tracker.book.incidents.keys) == ["group-7", "group-8", "group-9"])
    }
}
