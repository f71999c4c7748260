import Foundation
import IMProtocol

/// A cron schedule: `minute hour day-of-month month day-of-week`, with `*`, lists, ranges,
/// steps (`*/15`, `1-5`, `mon-fri`, `jan,jul`), or `@hourly`, `@daily`, `@weekly`,
/// `@monthly`, `@yearly`. As in Vixie cron, when both day fields are restricted a day
/// matching either is a match; day-of-week 0 and 7 are Sunday.
struct CronSchedule: Sendable, Hashable, CustomStringConvertible {
    let minutes: Set<Int>
    let hours: Set<Int>
    let days: Set<Int>
    let months: Set<Int>
    /// 0 = Monday ... 6 = Sunday, as `LocalTime` counts.
    let weekdays: Set<Int>
    let daysRestricted: Bool
    let weekdaysRestricted: Bool
    /// As written.
    let description: String

    /// Why a schedule does not parse.
    struct ParseError: Error {
        let message: String
    }

    init(_ text: String) throws(ParseError) {
        description = text
        let macros = ["@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
                      "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let fields = (macros[trimmed.lowercased()] ?? trimmed).split(whereSeparator: \.isWhitespace).map(String.init)
        guard fields.count == 5 else {
            throw ParseError(message: "'\(text)' is not a cron schedule: write five fields, minute hour day month weekday "
                             + "(e.g. \"0 9 * * 1-5\"), or @hourly, @daily, @weekly, @monthly")
        }
        minutes = try Self.field(fields[0], "minute", 0...59)
        hours = try Self.field(fields[1], "hour", 0...23)
        days = try Self.field(fields[2], "day of month", 1...31)
        months = try Self.field(fields[3], "month", 1...12, names: Self.monthNames)
        let cronDays = try Self.field(fields[4], "day of week", 0...7, names: Self.dayNames)
        weekdays = Set(cronDays.map { ($0 + 6) % 7 })
        daysRestricted = fields[2] != "*"
        weekdaysRestricted = fields[4] != "*"
    }

    /// The first time (wall ms, on a whole minute) after `time` the schedule fires, read in
    /// `zone`; nil when none comes within about five years (`0 0 31 2 *`).
    func next(after time: Int64, in zone: TimeZone) -> Int64? {
        var candidate = (time.floorDivided(by: 60_000) + 1) * 60_000
        for _ in 0..<20_000 {
            let local = LocalTime(Timestamp(milliseconds: candidate), in: zone)
            let date = TemplateContext.civil(fromDays: local.day)
            if !months.contains(date.month) || !dayMatches(date.day, local.weekday) {
                candidate += Int64(1440 - local.minuteOfDay) * 60_000
                continue
            }
            if !hours.contains(local.minuteOfDay / 60) {
                candidate += Int64(60 - local.minuteOfDay % 60) * 60_000
                continue
            }
            if !minutes.contains(local.minuteOfDay % 60) {
                candidate += 60_000
                continue
            }
            return candidate
        }
        return nil
    }

    private func dayMatches(_ day: Int, _ weekday: Int) -> Bool {
        switch (daysRestricted, weekdaysRestricted) {
        case (true, true): days.contains(day) || weekdays.contains(weekday)
        case (true, false): days.contains(day)
        case (false, true): weekdays.contains(weekday)
        case (false, false): true
        }
    }

    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    private static func field(_ text: String, _ name: String, _ range: ClosedRange<Int>,
                              names: [String] = []) throws(ParseError) -> Set<Int> {
        var values = Set<Int>()
        for part in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { throw bad(text, name, range) }
            var step = 1
            if pieces.count == 2 {
                guard let parsed = Int(pieces[1]), parsed > 0 else { throw bad(text, name, range) }
                step = parsed
            }
            let span: ClosedRange<Int>
            if pieces[0] == "*" {
                span = range
            } else {
                let bounds = pieces[0].split(separator: "-", omittingEmptySubsequences: false)
                guard (1...2).contains(bounds.count), let low = value(bounds[0], names: names, offset: range.lowerBound),
                      let high = bounds.count == 2 ? value(bounds[1], names: names, offset: range.lowerBound)
                          : (pieces.count == 2 ? range.upperBound : low),
                      range.contains(low), range.contains(high), low <= high else { throw bad(text, name, range) }
                span = low...high
            }
            values.formUnion(stride(from: span.lowerBound, through: span.upperBound, by: step))
        }
        return values
    }

    private static func value(_ text: Substring, names: [String], offset: Int) -> Int? {
        if let number = Int(text) { return number }
        guard let index = names.firstIndex(of: String(text)) else { return nil }
        return index + offset
    }

    private static func bad(_ text: String, _ name: String, _ range: ClosedRange<Int>) -> ParseError {
        ParseError(message: "'\(text)' is not a \(name) field (numbers \(range.lowerBound)-\(range.upperBound), "
                   + "names, *, lists a,b, ranges a-b and steps */n)")
    }
}

extension Int64 {
    /// Division rounding towards minus infinity.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
