import Foundation
import IMProtocol

/// `schedule:` and `quiet:`: a rule that fires on a time of its own, not for a feed event.
///
/// `schedule: "0 9 * * 1-5"` (with `timezone:` and `missed: skip | once | all`) fires on a
/// cron schedule; `quiet: {event: member_joined, for: 10m}` fires once in a conversation
/// where such an event happened and then none for 10 minutes. The bot's timer service
/// (`ModerationTimers`) keeps the times and hands the engine an event for the rule
/// (`BotEvent.trigger`); no feed event matches these.
final class TriggerCondition: Sendable {
    enum Kind: Sendable {
        case schedule(CronSchedule, zone: TimeZone?, missed: MissedRuns)
        /// No event of these kinds for `within` milliseconds.
        case quiet(events: Set<EventType>, within: Int64)
    }

    /// What a schedule does with the runs that fell while the runner was down.
    enum MissedRuns: String, Sendable, CaseIterable {
        /// Nothing: the next run is the next one due.
        case skip
        /// The latest missed run, once.
        case once
        /// Every missed run, in order (the last 100 at most).
        case all
    }

    let kind: Kind
    /// Where the trigger is written (`line:column`): names the trigger in events and in
    /// the journal.
    let id: String

    init(kind: Kind, id: String) {
        self.kind = kind
        self.id = id
    }

    func matches(_ facts: inout EventFacts) -> Bool { facts.trigger == id }

    func failure(_ facts: inout EventFacts) -> String {
        switch kind {
        case .schedule: "schedule: the rule fires on its schedule (\(summary)), not for events"
        case .quiet: "quiet: the rule fires after a quiet period (\(summary)), not for events"
        }
    }

    var summary: String {
        switch kind {
        case .schedule(let schedule, let zone, let missed):
            "on schedule '\(schedule)' (\(zone?.identifier ?? "the bot's time zone"); missed runs: \(missed.rawValue))"
        case .quiet(let events, let within):
            "no \(events.map(\.rawValue).sorted().joined(separator: " or ")) for \(ConfigDurationText.describe(milliseconds: within))"
        }
    }

    /// Whether an event of this kind re-arms the quiet trigger.
    func watches(_ type: EventType) -> Bool {
        if case .quiet(let events, _) = kind { return events.contains(type) }
        return false
    }

    static let cost = 0
}
