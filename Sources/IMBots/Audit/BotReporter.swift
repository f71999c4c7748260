import IMClient
import IMProtocol
import Lifecycle
import Logging

/// How one bot's parts tell what they did: counters for `/metrics`, a line in the audit
/// log per action, and log lines for failures.
struct BotReporter: Sendable {
    let bot: String
    let metrics: RunnerMetrics
    let audit: AuditLog
    let logger: Logger
    let time: any TimeSource

    /// The outcomes of one event's actions, one audit line each; then, when a rule's
    /// `stop` ended evaluation, a line for that (a stop is no action: it holds even when
    /// an action of its rule failed).
    func record(_ report: ActionReport, event: Event?, version: String) {
        var counted: Set<String> = []
        for outcome in report.outcomes {
            let outcomeName: String
            switch outcome.status {
            case .performed:
                outcomeName = "performed"
                if counted.insert(outcome.rule).inserted { metrics.count(bot: bot, rule: outcome.rule, .fired) }
            case .dryRun:
                outcomeName = "\(outcome.mode)"
                if counted.insert(outcome.rule).inserted { metrics.count(bot: bot, rule: outcome.rule, .suppressed) }
            case .failed(let error):
                outcomeName = "failed"
                let suppressed = error.message.hasPrefix("loop guard")
                metrics.count(bot: bot, rule: outcome.rule, suppressed ? .suppressed : .failed)
                logger.error("bot \(bot), rule \(outcome.rule), action \(outcome.actionIndex + 1) (\(outcome.kind)): "
                             + error.message)
            case .skipped:
                outcomeName = "skipped"
            }
            audit.record(entry(
                rule: outcome.rule, version: version, action: outcome.kind.rawValue, mode: "\(outcome.mode)",
                outcome: outcomeName, conversation: event?.conversation?.address.description, event: event?.position,
                detail: outcome.effect.map { "\($0)" } ?? outcome.description))
        }
        if let (rule, mode) = report.stop {
            let failed = report.outcomes.first { outcome in
                guard outcome.rule == rule, case .failed = outcome.status else { return false }
                return true
            }
            audit.record(entry(
                rule: rule, version: version, action: nil, mode: "\(mode)", outcome: "stopped",
                conversation: event?.conversation?.address.description, event: event?.position,
                detail: "its stop ended evaluation: no later rule ran for this event"
                    + (failed.map { " (it holds although action \($0.actionIndex + 1), \($0.kind), failed)" } ?? "")))
        }
    }

    /// A message the outbox gave up on.
    func sendFailed(_ message: PendingMessage, _ error: IMClientError, version: String) {
        metrics.count(bot: bot, rule: message.rule, .failed)
        logger.error("bot \(bot), rule \(message.rule): gave up sending to \(message.to): \(error.message)")
        audit.record(entry(
            rule: message.rule, version: version, action: message.action, mode: "enforce", outcome: "failed",
            conversation: message.to, event: message.position, detail: error.message))
    }

    /// A message a full outbox dropped.
    func shed(_ message: PendingMessage, cap: Int, version: String) {
        metrics.shed(bot: bot, .message)
        logger.warning("bot \(bot): the outbox of \(message.to) holds \(cap) messages; dropped the oldest reply")
        audit.record(entry(
            rule: message.rule, version: version, action: message.action, mode: "enforce", outcome: "shed",
            conversation: message.to, event: message.position,
            detail: "the conversation's outbox was full (\(cap) messages): \"\(message.text)\""))
    }

    /// An alert the outbox could not take (its conversation's queue full of alerts).
    func refused(_ message: PendingMessage, version: String) {
        metrics.alertRefused(bot: bot)
        logger.error("bot \(bot): the outbox of \(message.to) is full of alerts; an alert could not be queued")
        audit.record(entry(
            rule: message.rule, version: version, action: message.action, mode: "enforce", outcome: "refused",
            conversation: message.to, event: nil,
            detail: "the conversation's outbox was full of alerts: \"\(message.text)\""))
    }

    /// A webhook the inbox could not store: answered 503, so its sender tries again.
    func webhookRefused(path: String, reason: String, version: String) {
        logger.warning("bot \(bot): webhook on \(path) answered 503: \(reason)")
        audit.record(entry(rule: "-", version: version, action: "webhook", mode: "enforce", outcome: "refused",
                           conversation: nil, event: nil, detail: "\(path): \(reason); answered 503 with Retry-After"))
    }

    /// What a chat command of the bot's own did (a silence made or lifted, an incident
    /// closed by hand): who, where, what.
    func command(_ name: String, by user: String, in conversation: String, detail: String, version: String) {
        logger.notice("bot \(bot): /\(name) by \(user) in \(conversation): \(detail)")
        audit.record(entry(rule: "alert-commands", version: version, action: name, mode: "enforce", outcome: "done",
                           conversation: conversation, event: nil, detail: "by \(user): \(detail)"))
    }

    /// A feed event a full conversation lane dropped.
    func shed(_ event: Event, cap: Int, version: String) {
        metrics.shed(bot: bot, .event)
        let conversation = event.conversation?.address.description ?? "-"
        logger.warning("bot \(bot): \(cap) events of \(conversation) wait for slow http actions; dropped the oldest")
        audit.record(entry(
            rule: "-", version: version, action: "event", mode: "enforce", outcome: "shed", conversation: conversation,
            event: event.position, detail: "the conversation's lane was full (\(cap) events)"))
    }

    private func entry(rule: String, version: String, action: String?, mode: String, outcome: String,
                       conversation: String?, event: Int64?, detail: String?) -> AuditLog.Entry {
        AuditLog.Entry(
            at: Timestamp(milliseconds: time.wallMilliseconds).rfc3339, bot: bot, rule: rule, configVersion: version,
            action: action, mode: mode, outcome: outcome, conversation: conversation, event: event, detail: detail)
    }
}
