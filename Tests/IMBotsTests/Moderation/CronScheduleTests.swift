import Foundation
@testable import IMBots
import IMProtocol
import Testing

/// Cron schedules: parsing, and the next time they fire in a time zone.
@Suite struct CronScheduleTests {
    static func ms(_ text: String) -> Int64 { Timestamp(rfc3339: text)?.milliseconds ?? -1 }
    static func text(_ ms: Int64?) -> String? { ms.map { Timestamp(milliseconds: $0).rfc3339 } }
    static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .gmt

    @Test func weekdayMorningsInBerlin() throws {
        let cron = try CronSchedule("0 9 * * 1-5")
        // Friday 09:00 Berlin (08:00 UTC) is past: the next is Monday.
        #expect(Self.text(cron.next(after: Self.ms("2025-01-10T08:00:00Z"), in: Self.berlin)) == "2025-01-13T08:00:00.000Z")
        #expect(Self.text(cron.next(after: Self.ms("2025-01-13T07:59:00Z"), in: Self.berlin)) == "2025-01-13T08:00:00.000Z")
        // In summer Berlin is UTC+2.
        #expect(Self.text(cron.next(after: Self.ms("2025-07-01T00:00:00Z"), in: Self.berlin)) == "2025-07-01T07:00:00.000Z")
    }

    @Test func stepsListsRangesAndNames() throws {
        #expect(Self.text(try CronSchedule("*/15 * * * *").next(after: Self.ms("2025-01-06T10:07:30Z"), in: .gmt))
                == "2025-01-06T10:15:00.000Z")
        #expect(Self.text(try CronSchedule("5,35 8-9 * jan mon").next(after: Self.ms("2025-01-06T09:35:00Z"), in: .gmt))
                == "2025-01-13T08:05:00.000Z")
        #expect(Self.text(try CronSchedule("@daily").next(after: Self.ms("2025-01-06T10:00:00Z"), in: .gmt))
                == "2025-01-07T00:00:00.000Z")
        // Both day fields restricted: either matches (the 1st, or a Sunday).
        #expect(Self.text(try CronSchedule("0 0 1 * 0").next(after: Self.ms("2025-01-06T00:00:00Z"), in: .gmt))
                == "2025-01-12T00:00:00.000Z")
        #expect(try CronSchedule("0 0 31 2 *").next(after: 0, in: .gmt) == nil)
    }

    @Test func aTimeThatDaylightSavingSkipsIsSkipped() throws {
        // 02:30 does not exist in Berlin on 2025-03-30.
        let cron = try CronSchedule("30 2 * * *")
        #expect(Self.text(cron.next(after: Self.ms("2025-03-29T02:00:00Z"), in: Self.berlin)) == "2025-03-31T00:30:00.000Z")
    }

    @Test(arguments: ["0 9 * *", "61 * * * *", "0 25 * * *", "* * * * 8", "a b c d e", "5-1 * * * *", "*/0 * * * *"])
    func badSchedulesAreRefused(_ text: String) {
        #expect(throws: CronSchedule.ParseError.self) { try CronSchedule(text) }
    }

    @Test func checkReportsABadScheduleAndMissedPolicyAtTheirPlace() {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - name: morning
                when: { schedule: "0 9 * * 1-8", timezone: Europe/Berlin, missed: sometimes }
                do: [ { send: { to: "group:lobby", text: hi } } ]
            """)
        #expect(errors.contains { $0.contains(":5:") && $0.contains("'1-8' is not a day of week field") })
    }

    @Test func missedRunsFollowThePolicy() {
        let due: [Int64] = [100, 200, 300, 400]
        #expect(ModerationTimers.runs(due, missed: .skip, started: 350) == [400])
        #expect(ModerationTimers.runs(due, missed: .once, started: 350) == [300, 400])
        #expect(ModerationTimers.runs(due, missed: .all, started: 350) == [100, 200, 300, 400])
        #expect(ModerationTimers.runs(due, missed: .once, started: 50) == due)
    }
}
