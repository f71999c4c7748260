import Foundation
import IMClient
import IMProtocol

/// The alert half of the runner kill test: an alert bot beside the direct-message bot,
/// Alertmanager's notifications posted to its webhook route while the runner is killed,
/// and the audit of the living messages they leave in the bot's group.
extension RunnerKillScenario {
    static let alertBotName = "soakalerts"
    static let alertGroup = "soak-alerts"
    static let alertToken = "soak-\(UUID().uuidString)"
    static let alertPassword = "soak alerts password"
    static var alertEnvironment: [String: String] {
        ["SOAK_ALERTS_PASSWORD": alertPassword, "SOAK_ALERT_TOKEN": alertToken]
    }

    /// Every notification of the route is an incident in the group; resolves shown at once,
    /// so that each notification is one visible state change.
    static let alertBot = """
        # The soak test's alert bridge: Alertmanager's notifications as living messages.
        bot: \(alertBotName)
        account: { username: \(alertBotName), password: "${SOAK_ALERTS_PASSWORD}" }
        join: ["group:\(alertGroup)"]
        limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s }
        webhooks:
          - { path: /hooks/alertmanager, format: alertmanager, secret: "${SOAK_ALERT_TOKEN}" }
        rules:
          - name: incidents
            when: { webhook: /hooks/alertmanager }
            do: [ { incident: { to: "group:\(alertGroup)", flap_hold: 0s } } ]
        """

    /// The alert bot's account and file, and a person who owns the (invite-only) group it
    /// posts into and has invited it, as on-call people set it up; nil without webhooks.
    func setUpAlerts(_ server: ServerUnderTest, bots: String) async throws -> APIClient? {
        guard alerts.total > 0 else { return nil }
        _ = try await server.createAccount(Self.alertBotName, password: Self.alertPassword, bot: true)
        let watcher = try await server.client.register("soak-watch", password: "soak watcher password")
        _ = try await watcher.expect("POST", "/v1/groups", body: Data(#"{"name":"\#(Self.alertGroup)"}"#.utf8))
        _ = try await watcher.expect("POST", "/v1/groups/\(Self.alertGroup)/invites",
                                     body: Data(#"{"user":"\#(Self.alertBotName)"}"#.utf8))
        try Self.alertBot.write(toFile: bots + "/\(Self.alertBotName).yaml", atomically: true, encoding: .utf8)
        return watcher
    }

    /// Waits until the alert bot has joined its group (its first start accepts the invite).
    func waitForAlertBot(_ watcher: APIClient?) async throws {
        guard let watcher else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while clock.now < deadline {
            let members = try await watcher.expect("GET", "/v1/groups/\(Self.alertGroup)/members")
            if String(decoding: members.body, as: UTF8.self).contains(#""username":"\#(Self.alertBotName)""#) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SoakFailure("the alert bot did not join group:\(Self.alertGroup) within 60 s")
    }

    /// How one notification's delivery went.
    struct Delivery: Sendable {
        /// `stored`, `duplicate` or `unmatched` from the 2xx answer; nil when given up.
        var answer: String?
        var attempts = 0
        var failures: [String] = []
    }

    /// Each incident's notifications in order, one at a time, each retried until answered.
    func sendAlerts(_ hooks: APIClient, progress: Progress) async -> [Delivery] {
        await withTaskGroup(of: [Delivery].self) { group in
            for incident in 0..<alerts.incidents {
                group.addTask {
                    var deliveries: [Delivery] = []
                    for step in 0..<alerts.perIncident {
                        let delivery = await deliver(alerts.body(incident, step: step), to: hooks)
                        if delivery.answer != nil { progress.add() }
                        deliveries.append(delivery)
                        try? await Task.sleep(for: alertPace)
                    }
                    return deliveries
                }
            }
            var all: [Delivery] = []
            for await deliveries in group { all += deliveries }
            return all
        }
    }

    /// Posts one notification as Alertmanager does: again after a lost connection or a 5xx
    /// (backing off to a second), never after a 4xx, which it drops.
    private func deliver(_ body: Data, to hooks: APIClient, patience: Duration = .seconds(120)) async -> Delivery {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        var delivery = Delivery()
        var pause = Duration.milliseconds(50)
        while clock.now < deadline {
            delivery.attempts += 1
            do {
                let answer = try await hooks.send("POST", "/hooks/alertmanager", body: body, timeout: .seconds(20))
                switch answer.status {
                case 200...299:
                    let status = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["status"]
                    delivery.answer = status as? String ?? "unreadable"
                    return delivery
                case 500...:
                    delivery.failures.append(answer.summary)
                default:
                    delivery.failures.append(answer.summary)
                    return delivery
                }
            } catch let error as TransportError {
                delivery.failures.append(error.code.rawValue)
            } catch {
                delivery.failures.append("\(error)")
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(1))
        }
        return delivery
    }

    /// Reports the deliveries and checks the group against the plan, once the restarted
    /// runner has worked off its inbox (or after two minutes).
    func auditAlerts(_ deliveries: [Delivery], watcher: APIClient?, into report: inout Report) async throws {
        guard let watcher else {
            report.figure("webhooks", "none (--webhooks 0)")
            return
        }
        var answers: [String: Int] = [:]
        var failures: [String: Int] = [:]
        for delivery in deliveries {
            answers[delivery.answer ?? "given up", default: 0] += 1
            for failure in delivery.failures { failures[failure, default: 0] += 1 }
        }
        let retries = deliveries.map { $0.attempts - 1 }.reduce(0, +)
        report.figure("webhooks", "\(deliveries.count) Alertmanager notifications, \(alerts.incidents) incidents of "
            + "\(alerts.instances) alerts (\(alerts.perIncident) notifications each, one every \(String(format: "%.2f", alertPace.seconds)) s)")
        report.figure("webhook answers", Self.counts(answers))
        report.figure("webhook retries", "\(retries) (\(Self.counts(failures)))")
        report.check(answers["given up", default: 0] == 0, "\(answers["given up", default: 0]) notifications given up")
        report.check(answers["unmatched", default: 0] == 0, "\(answers["unmatched", default: 0]) notifications unmatched")

        let clock = ContinuousClock()
        let started = clock.now
        var audit = AlertAudit()
        repeat {
            let messages = try await watcher.history("group:\(Self.alertGroup)")
                .filter { $0.sender == Self.alertBotName && $0.type != .system }
            audit = (0..<alerts.incidents).map { alerts.problems($0, in: messages) }.reduce(AlertAudit(), +)
            if audit.isClean { break }
            try await Task.sleep(for: .milliseconds(500))
        } while clock.now - started < .seconds(120)
        report.figure("incidents shown", "\(alerts.incidents - audit.missingMessages) of \(alerts.incidents), "
            + String(format: "settled %.1f s after the last notification", (clock.now - started).seconds))
        report.figure("state changes lost", audit.lost)
        report.figure("state changes duplicated", audit.duplicated)
        report.check(audit.missingMessages == 0, "\(audit.missingMessages) incidents have no living message")
        report.check(audit.duplicateMessages == 0, "\(audit.duplicateMessages) living messages posted twice")
        report.check(audit.lost == 0, "\(audit.lost) state changes have no reply on their incident's message")
        report.check(audit.duplicated == 0, "\(audit.duplicated) state changes replied to twice")
        report.check(audit.stray == 0, "\(audit.stray) replies that are no state change of their message")
        report.check(audit.outOfOrder == 0, "\(audit.outOfOrder) replies before an earlier change's")
        report.check(audit.wrongFinalText == 0, "\(audit.wrongFinalText) living messages do not end resolved")
    }

    private static func counts(_ counts: [String: Int]) -> String {
        counts.isEmpty ? "none" : counts.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}
