import Foundation
import IMBots
import IMProtocol
import Lifecycle
import Testing

/// Incidents kept true by what Alertmanager holds: alerts gone while silenced resolve,
/// silences show who made them and until when, `/resolve` closes by hand.
@Suite("Incidents reconciled with Alertmanager")
struct IncidentReconcileTests {
    typealias F = AlertFixtures
    static let group = "{}:{alertname=\"DiskFull\"}"

    /// An incident of db-7 and db-9 firing, posted as message 42.
    func opened(now: Int64) -> IncidentTracker {
        var tracker = IncidentTracker(policy: IncidentPolicy(flapHold: .zero))
        _ = tracker.receive(F.group([F.alert("db-7"), F.alert("db-9")]), now: now)
        tracker.recordPosted(groupKey: Self.group, messageID: MessageID(rawValue: 42))
        return tracker
    }

    func text(_ effects: [IncidentEffect]) -> String? {
        effects.compactMap { effect -> String? in
            if case .edit(_, _, let text) = effect { return text }
            return nil
        }.first
    }

    func replies(_ effects: [IncidentEffect]) -> [String] {
        effects.compactMap { effect -> String? in
            if case .reply(_, _, let text) = effect { return text }
            return nil
        }
    }

    @Test("a silence made from chat shows who made it and until when; alerts gone while silenced resolve")
    func goneWhileSilenced() throws {
        let now: Int64 = 1_767_600_000_000  // 2026-01-05 08:00 UTC
        var tracker = opened(now: now)
        let silence = IncidentSilence(id: "s-1", createdBy: "alice", endsAt: now + 3 * 3_600_000)
        let noted = tracker.noteSilence(groupKey: Self.group, silence,
                                        matchers: [SilenceMatcher(name: "alertname", value: "DiskFull")], now: now)
        #expect(text(noted)?.contains("\n🔕 silenced by alice until 2026-01-05 11:00 UTC\n") == true, "\(noted)")

        // Both alerts resolved while silenced: Alertmanager sent nothing, and no longer holds them.
        let fingerprints: Set = ["fp-db-7", "fp-db-9"]
        let effects = tracker.reconcile(groupKey: Self.group, present: [:], silences: [], asked: fingerprints,
                                        now: now + 3_600_000)
        let message = try #require(text(effects))
        #expect(message.hasPrefix("✅ RESOLVED: DiskFull\n0 firing · 2 resolved · resolved while silenced"), "\(message)")
        #expect(!message.contains("🔕"))
        #expect(replies(effects) == ["✅ all resolved while silenced: DiskFull"])
        #expect(tracker.book.incident(messageID: MessageID(rawValue: 42))?.isClosed == true)
        // Nothing more to say the next time.
        #expect(tracker.reconcile(groupKey: Self.group, present: [:], silences: [], asked: fingerprints,
                                  now: now + 7_200_000).isEmpty)
    }

    @Test("an alert still held keeps firing with Alertmanager's silences; one gone unsilenced says so")
    func partlyGone() throws {
        let now: Int64 = 1_767_600_000_000
        var tracker = opened(now: now)
        let effects = tracker.reconcile(
            groupKey: Self.group, present: ["fp-db-9": ["s-2"]],
            silences: [IncidentSilence(id: "s-2", createdBy: "bob", endsAt: now + 1_800_000)],
            asked: ["fp-db-7", "fp-db-9"], now: now + 60_000)
        let message = try #require(text(effects))
        #expect(message.contains("1 firing · 1 resolved"), "\(message)")
        #expect(message.contains("🔕 silenced by bob until 2026-01-05 08:30 UTC"), "\(message)")
        #expect(replies(effects) == ["✅ resolved (no longer in Alertmanager): db-7"])
        #expect(tracker.book.incident(messageID: MessageID(rawValue: 42))?.nextSilenceEnd == now + 1_800_000)
    }

    @Test("an alert a notification added after Alertmanager was asked is left alone")
    func onlyAskedAlertsAreJudged() {
        let now: Int64 = 1_767_600_000_000
        var tracker = opened(now: now)
        #expect(tracker.reconcile(groupKey: Self.group, present: ["fp-db-7": [], "fp-db-9": []], silences: [],
                                  asked: ["fp-db-7"], now: now).isEmpty)
        let effects = tracker.reconcile(groupKey: Self.group, present: ["fp-db-7": []], silences: [],
                                        asked: ["fp-db-7"], now: now)
        #expect(effects.isEmpty, "db-9 was not asked about: \(effects)")
    }

    @Test("/resolve closes by hand, once, and says who")
    func byHand() throws {
        let now: Int64 = 1_767_600_000_000
        var tracker = opened(now: now)
        let resolved = tracker.resolve(messageID: MessageID(rawValue: 42), by: "carol", now: now)
        let effects = try #require(resolved)
        #expect(text(effects)?.hasPrefix("✅ RESOLVED: DiskFull\n0 firing · 2 resolved · closed by carol") == true,
                "\(effects)")
        #expect(tracker.resolve(messageID: MessageID(rawValue: 42), by: "carol", now: now) == [])
        #expect(tracker.resolve(messageID: MessageID(rawValue: 7), by: "carol", now: now) == nil)
    }
}
