import Foundation
import HTTPServer
import Synchronization

/// The runner's counters, served at `/metrics` on its listener in the Prometheus text
/// format, labelled by bot and rule.
public final class RunnerMetrics: Sendable {
    /// What happened to a rule for one event.
    public enum Outcome: String, Sendable, CaseIterable {
        /// Its conditions held.
        case matched
        /// Its actions ran (enforce mode).
        case fired
        /// It matched but did nothing: dry or shadow mode, or the loop guard.
        case suppressed
        /// An action failed after its retries.
        case failed
    }

    private struct RuleKey: Hashable {
        var bot: String
        var rule: String
        var outcome: Outcome
    }

    private struct Histogram {
        static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
        var counts = [Int](repeating: 0, count: Histogram.bounds.count)
        var sum = 0.0
        var total = 0

        mutating func observe(_ seconds: Double) {
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { counts[index] += 1 }
            sum += seconds
            total += 1
        }
    }

    private struct State {
        var rules: [RuleKey: Int] = [:]
        var latency: [String: Histogram] = [:]
        var pollLag: [String: Double] = [:]
        var cursorResets: [String: Int] = [:]
        var eventsHandled: [String: Int] = [:]
        var connected: [String: Bool] = [:]
        var shed: [ShedKey: Int] = [:]
        var auditFailures = 0
        var reloadFailures: [String: Int] = [:]
        var configFailing: [String: Bool] = [:]
        var webhooks: [WebhookKey: Int] = [:]
        var alertsRefused: [String: Int] = [:]
        var leaseHeld: [String: Bool] = [:]
        var leasesTaken: [String: Int] = [:]
        var leasesLost: [String: Int] = [:]
    }

    /// What became of a webhook request.
    public enum WebhookOutcome: String, Sendable, CaseIterable {
        /// Stored in the journal (answered 200).
        case stored
        /// A repeat of one stored before (dedupe; answered 200).
        case duplicate
        /// No rule takes it (answered 200).
        case unmatched
        /// A wrong or missing secret (401).
        case unauthorized
        /// A body that does not parse or exceeds a bound (400, 413), or a wrong method (405).
        case invalid
        /// It could not be stored now (503 with `Retry-After`).
        case unavailable
    }

    private struct WebhookKey: Hashable {
        var bot: String
        var path: String
        var outcome: WebhookOutcome
    }

    /// What a full queue dropped.
    public enum Shed: String, Sendable {
        /// A reply from a full conversation outbox.
        case message
        /// A feed event from a full conversation lane (its `http` actions never ran).
        case event
    }

    private struct ShedKey: Hashable {
        var bot: String
        var kind: Shed
    }

    private let state = Mutex(State())

    public init() {}

    func count(bot: String, rule: String, _ outcome: Outcome) {
        state.withLock { $0.rules[RuleKey(bot: bot, rule: rule, outcome: outcome), default: 0] += 1 }
    }

    func actionLatency(bot: String, seconds: Double) {
        state.withLock { $0.latency[bot, default: Histogram()].observe(seconds) }
    }

    /// Seconds between an event's creation on the server and its arrival here.
    func pollLag(bot: String, seconds: Double) {
        state.withLock { $0.pollLag[bot] = max(0, seconds) }
    }

    func cursorReset(bot: String) {
        state.withLock { $0.cursorResets[bot, default: 0] += 1 }
    }

    func eventHandled(bot: String) {
        state.withLock { $0.eventsHandled[bot, default: 0] += 1 }
    }

    func connected(bot: String, _ up: Bool) {
        state.withLock { $0.connected[bot] = up }
    }

    func shed(bot: String, _ kind: Shed, count: Int = 1) {
        state.withLock { $0.shed[ShedKey(bot: bot, kind: kind), default: 0] += count }
    }

    /// A reload found the bot's file changed and could not take it.
    func reloadFailed(bot: String) {
        state.withLock { $0.reloadFailures[bot, default: 0] += 1 }
    }

    /// Whether the bot's file fails now (the bot runs on old rules, or not at all).
    func configFailing(bot: String, _ failing: Bool) {
        state.withLock { $0.configFailing[bot] = failing }
    }

    /// The bot's file was taken: it does not fail, and its failed reloads are shown from
    /// 0, so that an alert on their increase sees the first one.
    func fileTaken(bot: String) {
        state.withLock {
            $0.configFailing[bot] = false
            if $0.reloadFailures[bot] == nil { $0.reloadFailures[bot] = 0 }
        }
    }

    /// Failed reloads of a bot's file (for tests).
    public func reloadFailures(bot: String) -> Int {
        state.withLock { $0.reloadFailures[bot] ?? 0 }
    }

    /// A lease keeper for the bot starts (`runner.journal: server`): its lease series are
    /// shown from 0, so that an alert on their change sees the first one.
    func leaseWatched(bot: String) {
        state.withLock {
            $0.leaseHeld[bot] = false
            if $0.leasesTaken[bot] == nil { $0.leasesTaken[bot] = 0 }
            if $0.leasesLost[bot] == nil { $0.leasesLost[bot] = 0 }
        }
    }

    /// This runner took the bot's lease and runs it.
    func leaseTaken(bot: String) {
        state.withLock {
            $0.leaseHeld[bot] = true
            $0.leasesTaken[bot, default: 0] += 1
        }
    }

    /// The holding here ended; `lost` when another runner took the bot or no renewal got
    /// through before its end (not when the bot or the runner stopped).
    func leaseEnded(bot: String, lost: Bool) {
        state.withLock {
            $0.leaseHeld[bot] = false
            if lost { $0.leasesLost[bot, default: 0] += 1 }
        }
    }

    /// The bot's lease keeper stopped (its file is gone, its login refused for good): its
    /// gauge goes, so that a sum over the runners counts only those that may run it. The
    /// counters stay.
    func leaseUnwatched(bot: String) {
        state.withLock { _ = $0.leaseHeld.removeValue(forKey: bot) }
    }

    func webhook(bot: String, path: String, _ outcome: WebhookOutcome) {
        state.withLock { $0.webhooks[WebhookKey(bot: bot, path: path, outcome: outcome), default: 0] += 1 }
    }

    func alertRefused(bot: String) {
        state.withLock { $0.alertsRefused[bot, default: 0] += 1 }
    }

    /// Webhook requests of a bot's path with an outcome (for tests and benchmarks).
    public func webhookCount(bot: String, path: String, _ outcome: WebhookOutcome) -> Int {
        state.withLock { $0.webhooks[WebhookKey(bot: bot, path: path, outcome: outcome)] ?? 0 }
    }

    func auditFailed() {
        state.withLock { $0.auditFailures += 1 }
    }

    /// How many items of a kind a bot shed (for tests).
    public func shedCount(bot: String, _ kind: Shed) -> Int {
        state.withLock { $0.shed[ShedKey(bot: bot, kind: kind)] ?? 0 }
    }

    /// Audit lines that could not be written.
    public var auditFailures: Int { state.withLock { $0.auditFailures } }

    /// The count of one rule outcome (for tests and `explain`).
    public func value(bot: String, rule: String, _ outcome: Outcome) -> Int {
        state.withLock { $0.rules[RuleKey(bot: bot, rule: rule, outcome: outcome)] ?? 0 }
    }

    /// The exposition text.
    public func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP switchboard_bot_rule_total Rule outcomes per bot and rule.\n# TYPE switchboard_bot_rule_total counter\n"
        for (key, value) in snapshot.rules.sorted(by: { ($0.key.bot, $0.key.rule, $0.key.outcome.rawValue) < ($1.key.bot, $1.key.rule, $1.key.outcome.rawValue) }) {
            out += "switchboard_bot_rule_total{bot=\"\(escape(key.bot))\",rule=\"\(escape(key.rule))\",outcome=\"\(key.outcome.rawValue)\"} \(value)\n"
        }
        out += "# HELP switchboard_bot_action_seconds Time to run an event's actions.\n# TYPE switchboard_bot_action_seconds histogram\n"
        for (bot, histogram) in snapshot.latency.sorted(by: { $0.key < $1.key }) {
            for (index, bound) in Histogram.bounds.enumerated() {
                out += "switchboard_bot_action_seconds_bucket{bot=\"\(escape(bot))\",le=\"\(bound)\"} \(histogram.counts[index])\n"
            }
            out += "switchboard_bot_action_seconds_bucket{bot=\"\(escape(bot))\",le=\"+Inf\"} \(histogram.total)\n"
            out += "switchboard_bot_action_seconds_sum{bot=\"\(escape(bot))\"} \(histogram.sum)\n"
            out += "switchboard_bot_action_seconds_count{bot=\"\(escape(bot))\"} \(histogram.total)\n"
        }
        out += family("switchboard_bot_poll_lag_seconds", "gauge", "Age of the newest event when it reached the bot.",
                      snapshot.pollLag.mapValues { "\($0)" })
        out += family("switchboard_bot_cursor_resets_total", "counter",
                      "Times the server no longer knew a bot's cursor (re-sync).", snapshot.cursorResets.mapValues(String.init))
        out += family("switchboard_bot_events_total", "counter", "Events a bot handled.",
                      snapshot.eventsHandled.mapValues(String.init))
        out += family("switchboard_bot_connected", "gauge", "Whether a bot's event stream is connected.",
                      snapshot.connected.mapValues { $0 ? "1" : "0" })
        out += family("switchboard_bot_reload_failures_total", "counter",
                      "Reloads that found a bot's file changed and could not take it (the old rules stay).",
                      snapshot.reloadFailures.mapValues(String.init))
        out += family("switchboard_bot_config_failing", "gauge",
                      "Whether a bot's file fails now: the bot runs on old rules, or not at all.",
                      snapshot.configFailing.mapValues { $0 ? "1" : "0" })
        // Only a runner whose journals are on the server has leases to show.
        if !snapshot.leasesTaken.isEmpty {
            out += family("switchboard_bot_lease_held", "gauge",
                          "Whether this runner holds a bot's lease and runs it (runner.journal: server).",
                          snapshot.leaseHeld.mapValues { $0 ? "1" : "0" })
            out += family("switchboard_bot_lease_taken_total", "counter",
                          "Holdings of a bot's lease that started in this runner.",
                          snapshot.leasesTaken.mapValues(String.init))
            out += family("switchboard_bot_lease_lost_total", "counter",
                          "Holdings here that ended because another runner took the bot or no renewal got through in time.",
                          snapshot.leasesLost.mapValues(String.init))
        }
        out += "# HELP switchboard_bot_shed_total Replies (message) and events (event) dropped from a full conversation queue.\n# TYPE switchboard_bot_shed_total counter\n"
        for (key, count) in snapshot.shed.sorted(by: { ($0.key.bot, $0.key.kind.rawValue) < ($1.key.bot, $1.key.kind.rawValue) }) {
            out += "switchboard_bot_shed_total{bot=\"\(escape(key.bot))\",kind=\"\(key.kind.rawValue)\"} \(count)\n"
        }
        out += "# HELP switchboard_webhook_requests_total Webhook requests per bot, path and outcome.\n# TYPE switchboard_webhook_requests_total counter\n"
        for (key, count) in snapshot.webhooks.sorted(by: { ($0.key.bot, $0.key.path, $0.key.outcome.rawValue) < ($1.key.bot, $1.key.path, $1.key.outcome.rawValue) }) {
            out += "switchboard_webhook_requests_total{bot=\"\(escape(key.bot))\",path=\"\(escape(key.path))\",outcome=\"\(key.outcome.rawValue)\"} \(count)\n"
        }
        out += family("switchboard_bot_alerts_refused_total", "counter",
                      "Alerts an outbox full of alerts could not take (audited; a webhook is answered 503 before that).",
                      snapshot.alertsRefused.mapValues(String.init))
        out += "# HELP switchboard_bot_regex_limit_total Regex matches stopped by the match limit (counted as no match).\n# TYPE switchboard_bot_regex_limit_total counter\n"
        out += "switchboard_bot_regex_limit_total \(RegexMatcher.limitHits)\n"
        out += "# HELP switchboard_runner_audit_failures_total Audit lines that could not be written.\n# TYPE switchboard_runner_audit_failures_total counter\n"
        out += "switchboard_runner_audit_failures_total \(snapshot.auditFailures)\n"
        return out
    }

    /// One metric with a value per bot, in bot order.
    private func family(_ name: String, _ type: String, _ help: String, _ values: [String: String]) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for (bot, value) in values.sorted(by: { $0.key < $1.key }) { out += "\(name){bot=\"\(escape(bot))\"} \(value)\n" }
        return out
    }

    private func escape(_ label: String) -> String { PrometheusText.label(label) }
}
