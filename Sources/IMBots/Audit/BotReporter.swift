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

    /// The outcomes of one event's actions.
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
                logger.error("bot \(bot), rule \(outcome.rule), action \(outcome.actionIndex) (\(outcome.kind)): \(error.message)")
            case .skipped:
                outcomeName = "skipped"
            }
            audit.record(entry(
                rule: outcome.rule, version: version, action: outcome.kind.rawValue, mode: "\(outcome.mode)",
                outcome: outcomeName, conversation: event?.conversation?.address.description, event: event?.position,
                detail: outcome.effect.map { "\($0)" } ?? outcome.description))
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

    /// A feed event a full conversation lane dropped.
    func shed(_ event: Event, cap: Int, version: String) {
        metrics.shed(bot: bot, .event)
        let conversation = event.conversation?.address.description ?? "-"
        logger.warning("bot \(bot): \(cap) events of \(conversation) wait for slow http actions; dropped the oldest")
        audit.record(entry(
            rule: "-", version: version, action: "event", mode: "enforce", outcome: "shed", conversation: conversation,
            event: event.position, detail: "the conversation's lane was full (\(cap) events)"))
    }

    private func entry(rule: String, version: String, action: String, mode: String, outcome: String,
                       conversation: String?, event: Int64?, detail: String?) -> AuditLog.Entry {
        AuditLog.Entry(
            at: Timestamp(milliseconds: time.wallMilliseconds).rfc3339, bot: bot, rule: rule, configVersion: version,
            action: action, mode: mode, outcome: outcome, conversation: conversation, event: event, detail: detail)
    }
}
