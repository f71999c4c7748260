import Foundation

/// `hours:` and `days:` (with an optional `timezone:`): the local time of the event.
final class TimeWindow: Sendable {
    /// Local clock times from `start` up to (not including) `end`, in minutes after
    /// midnight; a span whose end is before its start runs over midnight.
    struct Span: Sendable, Hashable {
        let start: Int
        let end: Int

        func contains(_ minute: Int) -> Bool {
            start < end ? (start <= minute && minute < end) : (minute >= start || minute < end)
        }

        var description: String { Self.clock(start) + "-" + Self.clock(end) }

        static func clock(_ minutes: Int) -> String {
            let hour = minutes / 60, minute = minutes % 60
            return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
        }
    }

    /// Accepted clock spans; empty accepts any time of day.
    let hours: [Span]
    /// Accepted days, 0 = Monday; nil accepts every day.
    let days: Set<Int>?
    /// The zone to read the clock in; nil uses the context's zone.
    let timezone: TimeZone?

    init(hours: [Span], days: Set<Int>?, timezone: TimeZone?) {
        self.hours = hours
        self.days = days
        self.timezone = timezone
    }

    func matches(_ facts: inout EventFacts) -> Bool {
        let local = facts.localTime(in: timezone)
        if !hours.isEmpty, !hours.contains(where: { $0.contains(local.minuteOfDay) }) { return false }
        if let days, !days.contains(local.weekday) { return false }
        return true
    }

    func failure(_ facts: inout EventFacts) -> String {
        let local = facts.localTime(in: timezone)
        if !hours.isEmpty, !hours.contains(where: { $0.contains(local.minuteOfDay) }) {
            return "hours: local time is \(local.clock) (\(local.zone)), rule wants \(hoursText)"
        }
        if let days, !days.contains(local.weekday) {
            return "days: it is \(LocalTime.dayNames[local.weekday]) (\(local.zone)), rule wants \(daysText(days))"
        }
        return "hours: does not match"
    }

    var summary: String {
        var parts: [String] = []
        if !hours.isEmpty { parts.append("local time is within \(hoursText)") }
        if let days { parts.append("day is one of \(daysText(days))") }
        return parts.joined(separator: " and ")
    }

    private var hoursText: String { hours.map(\.description).joined(separator: ", ") }

    private func daysText(_ days: Set<Int>) -> String {
        days.sorted().map { LocalTime.dayNames[$0] }.joined(separator: ", ")
    }
}
