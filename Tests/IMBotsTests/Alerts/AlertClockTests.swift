import Foundation
@testable import IMBots
import IMProtocol
import Lifecycle
import TestSupport
import Testing

extension ServerSuites {
    /// The alert bridge's timers on the runner's injected clock: the flap damper's hold
    /// and the dead-man's switch, moved by the test, never waited for.
    @Suite(.timeLimit(.minutes(3))) struct AlertClockTests {
        @Test func aResolveIsHeldAndAFlapIsCountedInTheMessageWithoutReplies() async throws {
            let time = ManualTime()
            let rules = """
                  - name: critical
                    when: { webhook: /hooks/alertmanager }
                    do: [ { incident: { to: "group:oncall", flap_hold: 5m } } ]
                """
            try await withAlertWorld(bot: AlertWorld.bot(rules: rules), time: time) { world in
                #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing)])).status == 200)
                try await world.awaitMessages("posted") { $0.count == 1 }
                #expect(try await world.post(AlertBodies.diskFull([("db-7", .resolved)])).status == 200)
                let again = AlertBodies.diskFull([("db-7", .firing)], startsAt: "2026-01-05T09:02:00Z")
                #expect(try await world.post(again).status == 200)
                var messages = try await world.awaitMessages("the flap counted") { $0.first?.text.contains("flapped 1×") == true }
                #expect(messages.count == 1, "no resolved/firing replies: \(messages.map(\.text))")
                #expect(messages[0].text.hasPrefix("🔥 FIRING: DiskFull\n1 firing · 0 resolved · flapped 1×"))

                #expect(try await world.post(AlertBodies.diskFull([("db-7", .resolved)], startsAt: "2026-01-05T09:02:00Z"))
                    .status == 200)
                // Held: a notification of another group, handled after it, finds it unchanged.
                #expect(try await world.post(AlertBodies.diskFull([("cpu-1", .firing)], groupKey: "cpu",
                                                                   alertname: "CPUHigh")).status == 200)
                messages = try await world.awaitMessages("the other group") { $0.count == 2 }
                #expect(messages[0].text.hasPrefix("🔥 FIRING: DiskFull"), "still shown firing while held")

                time.advance(by: .seconds(300))
                messages = try await world.awaitMessages("the resolve shown") { messages in
                    messages.contains { $0.text == "✅ all resolved: DiskFull" }
                }
                #expect(messages[0].text.hasPrefix("✅ RESOLVED: DiskFull\n0 firing · 1 resolved · flapped 1×"))
                #expect(messages.last?.replyTo == messages[0].id)
            }
        }

        @Test func theDeadMansSwitchFiresWhenTheWatchdogStaysAwayAndResolvesWhenItIsBack() async throws {
            let time = ManualTime()
            let rules = """
                  - name: alert-path
                    when:
                      webhook: /hooks/alertmanager
                      match: { commonLabels.alertname: Watchdog, status: firing }
                      quiet: 5m
                    do: [ { incident: { to: "group:oncall", flap_hold: 0s } } ]
                """
            try await withAlertWorld(bot: AlertWorld.bot(rules: rules), time: time) { world in
                try await world.runner.logs.line(containing: "dead-man's switch alert-path armed")
                let watchdog = AlertBodies.diskFull([("am", .firing)], groupKey: "watchdog", alertname: "Watchdog")
                #expect(try await world.post(watchdog).status == 200)
                time.advance(by: .seconds(299))
                #expect(try await world.post(AlertBodies.diskFull([("db-7", .firing)])).status == 200)
                time.advance(by: .seconds(299))
                try await world.runner.logs.line(containing: "dead-man's switch alert-path fired")
                var messages = try await world.awaitMessages("the switch's alert") { $0.count == 1 }
                #expect(messages[0].text.hasPrefix("🔥 FIRING: DeadMansSwitch"))
                #expect(messages[0].text.contains("nothing rule alert-path expects arrived on /hooks/alertmanager for 5m"))

                // Seen again: the alert path works, the incident resolves.
                time.advance(by: .seconds(1))
                #expect(try await world.post(watchdog).status == 200)
                messages = try await world.awaitMessages("recovered") { $0.count == 2 }
                #expect(messages[0].text.hasPrefix("✅ RESOLVED: DeadMansSwitch"))
                #expect(messages[1].text == "✅ all resolved: DeadMansSwitch")
            }
        }
    }
}
