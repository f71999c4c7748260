import Foundation
import IMProtocol

/// What `/console/api/state` answers: every bot with its state (running, reloading,
/// failing with its check errors, the lease and who holds it), each rule's counts, the
/// webhooks with their counts and inbox, open incidents and moderation cases.
///
/// Read from what the runner keeps anyway (``RunnerHealth``, ``RunnerMetrics``) and
/// each running bot's journal state; the alert and moderation parts of that state are
/// passed on as the journal encodes them (the page reads the fields it knows), so this
/// report does not depend on their insides.
struct ConsoleReport {
    let runner: BotRunner
    let caller: String

    func json() -> Data {
        let slots = runner.slotsByName
        let problems = runner.health.problems
        let reloading = runner.isReloading
        var leases: [String: RunnerHealth.Lease] = [:]
        for (bot, slot) in slots { if let holding = slot.holding { leases[bot] = RunnerHealth.Lease(bot: bot, holding) } }
        var bots: [[String: Any]] = []
        var names = Set(slots.keys)
        for problem in problems where slots[problem.bot] == nil { names.insert(problem.bot) }
        for name in names.sorted() {
            var bot: [String: Any] = ["name": name]
            let problem = problems.first { $0.bot == name }
            let slot = slots[name]
            bot["state"] = problem.map { $0.state == .oldRules ? "failing_old_rules" : "failing" }
                ?? (reloading ? "reloading" : "running")
            if let problem {
                bot["file"] = problem.file
                bot["errors"] = problem.errors
                bot["since"] = problem.since
            }
            if let lease = leases[name] {
                var entry: [String: Any] = ["state": lease.state.rawValue]
                if let fence = lease.fence { entry["fence"] = fence }
                if let holder = lease.holder { entry["holder"] = holder }
                bot["lease"] = entry
            }
            if let definition = slot?.definition {
                bot["file"] = bot["file"] ?? definition.file
                bot["version"] = definition.version
                bot["rules"] = definition.rules.map { rule -> [String: Any] in
                    var counts: [String: Any] = ["name": rule.name, "mode": rule.mode.rawValue]
                    for outcome in RunnerMetrics.Outcome.allCases {
                        counts[outcome.rawValue] = runner.metrics.value(bot: name, rule: rule.name, outcome)
                    }
                    return counts
                }
                bot["webhooks"] = definition.webhooks.map { endpoint -> [String: Any] in
                    var counts: [String: Any] = [:]
                    for outcome in RunnerMetrics.WebhookOutcome.allCases {
                        counts[outcome.rawValue] = runner.metrics.webhookCount(bot: name, path: endpoint.path, outcome)
                    }
                    return ["path": endpoint.path, "format": "\(endpoint.route.format)", "requests": counts]
                }
            }
            if let journal = slot?.consoleJournal {
                let (alerts, moderation, outbox) = journal.read { ($0.alerts, $0.moderation, $0.outbox.count) }
                bot["outbox"] = outbox
                bot["alerts"] = Self.object(alerts, dropping: "body")
                bot["moderation"] = Self.object(moderation, dropping: nil)
            }
            bots.append(bot)
        }
        let report: [String: Any] = [
            "caller": caller, "reloading": reloading, "bots": bots, "status": problems.isEmpty ? "ok" : "degraded",
            "server": runner.configuration.serverURL,
        ]
        return (try? JSONSerialization.data(withJSONObject: report, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }

    /// A journal part as JSON objects; `dropping` removes a key wherever it is (the
    /// webhook bodies: the page shows deliveries, not their bytes).
    static func object<T: Encodable>(_ value: T, dropping key: String?) -> Any {
        guard let data = try? JSONEncoder().encode(value),
              let object = try? JSONSerialization.jsonObject(with: data) else { return NSNull() }
        guard let key else { return object }
        func strip(_ value: Any) -> Any {
            if let dictionary = value as? [String: Any] {
                return dictionary.filter { $0.key != key }.mapValues(strip)
            }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        return strip(object)
    }
}
