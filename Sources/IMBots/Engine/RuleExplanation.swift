/// How one rule judged one event, for `switchboard explain`.
public struct RuleExplanation: Sendable, CustomStringConvertible {
    /// The outcome for the rule.
    public enum Verdict: String, Sendable, Hashable {
        /// It matched and fires (in its mode).
        case fired
        /// One of its conditions does not hold; `reason` names the first.
        case notMatched = "not matched"
        /// It matches, but an earlier rule's `stop` ended evaluation before it.
        case suppressed
        /// The event is not considered by any rule (own event, outside `listen`...).
        case ignored
    }

    /// The rule's name.
    public let rule: String
    /// The rule's mode.
    public let mode: RuleMode
    /// Where the rule starts.
    public let location: SourceLocation
    /// The outcome.
    public let verdict: Verdict
    /// Why, in words: the first condition that failed, or what the match bound.
    public let reason: String
    /// What the match bound, when the rule matched.
    public let bindings: Bindings?
    /// More lines under the verdict: each `match:` entry of a webhook rule, held or not,
    /// with the values seen.
    public var details: [String] = []

    /// `greet: fired — ...`, one line.
    public var description: String { "\(rule): \(verdict.rawValue) — \(reason)" }
}

extension RuleEngine {
    /// Each rule's verdict on `event`, in rule order: matched, or the first condition
    /// (in the order written) that does not hold.
    public func explain(_ event: BotEvent, context: BotContext) -> [RuleExplanation] {
        if let ignored = ignoredReason(event, context: context) {
            return bot.rules.map { rule in
                RuleExplanation(rule: rule.name, mode: rule.mode, location: rule.location,
                                verdict: .ignored, reason: ignored.description, bindings: nil)
            }
        }
        var facts = EventFacts(event: event, context: context)
        var stoppedBy: String?
        return bot.rules.map { rule in
            func result(_ verdict: RuleExplanation.Verdict, _ reason: String,
                        _ bindings: Bindings? = nil) -> RuleExplanation {
                RuleExplanation(rule: rule.name, mode: rule.mode, location: rule.location,
                                verdict: verdict, reason: reason, bindings: bindings)
            }
            if let webhook = rule.webhook, event.webhookPath == nil {
                return result(.notMatched, "webhook: the rule takes webhooks on \(webhook.path), not feed events")
            }
            if let path = event.webhookPath {
                guard let webhook = rule.webhook else {
                    return result(.notMatched, "the rule takes feed events, not webhooks")
                }
                var explanation = explainWebhook(rule, webhook, path: path, event: event, &facts, stoppedBy: &stoppedBy)
                if let payload = event.payload, webhook.path == path {
                    explanation.details = webhook.match?.explanation(of: payload.templateValue) ?? []
                }
                return explanation
            }
            guard rule.events.accepts(event.type) else {
                return result(.notMatched, "event: event is \(event.type.rawValue), rule wants \(rule.events)")
            }
            var bindings = Bindings()
            if let failure = rule.when.firstFailure(&facts, &bindings) {
                return result(.notMatched, failure)
            }
            var reason = rule.when.conditions.isEmpty
                ? "no conditions: matches every \(rule.events) event" : "all conditions hold"
            reason += Self.describe(bindings)
            for condition in rule.when.conditions {
                if case .moderation(.window(let window)) = condition { reason += "; " + window.state(&facts) }
            }
            if let stopper = stoppedBy {
                return result(.suppressed, "matches, but rule '\(stopper)' stopped evaluation before it", bindings)
            }
            switch rule.mode {
            case .enforce: break
            case .dry: reason += "; dry mode: its actions are logged, not performed"
            case .shadow: reason += "; shadow mode: reported only, and its stop is ignored"
            }
            if rule.endsEvaluation {
                stoppedBy = rule.name
                reason += "; its stop ends evaluation"
            }
            return result(.fired, reason, bindings)
        }
    }

    /// A webhook rule's verdict on a delivery.
    private func explainWebhook(_ rule: Rule, _ webhook: WebhookCondition, path: String, event: BotEvent,
                                _ facts: inout EventFacts, stoppedBy: inout String?) -> RuleExplanation {
        func result(_ verdict: RuleExplanation.Verdict, _ reason: String) -> RuleExplanation {
            RuleExplanation(rule: rule.name, mode: rule.mode, location: rule.location, verdict: verdict, reason: reason,
                            bindings: nil)
        }
        guard webhook.path == path else { return result(.notMatched, "webhook: the rule takes \(webhook.path), not \(path)") }
        var bindings = Bindings()
        if let failure = rule.when.firstFailure(&facts, &bindings) { return result(.notMatched, failure) }
        var reason = webhook.match == nil ? "no match: takes every payload on \(path)" : "every match: entry holds"
        if webhook.quiet != nil {
            reason += "; a dead-man's switch: this payload re-arms it (and ends it, when it has fired)"
        }
        if let stopper = stoppedBy {
            return result(.suppressed, "matches, but rule '\(stopper)' stopped evaluation before it")
        }
        if rule.endsEvaluation {
            stoppedBy = rule.name
            reason += "; its stop ends evaluation"
        }
        return result(.fired, reason)
    }

    /// ` (matched = 'hi', match.1 = 'hi', args = '...')`, or nothing.
    static func describe(_ bindings: Bindings) -> String {
        var parts = bindings.matched.map { ["matched = '\($0)'"] } ?? []
        parts += bindings.match.keys.sorted { lhs, rhs in
            switch (Int(lhs), Int(rhs)) {
            case let (l?, r?): l < r
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): lhs < rhs
            }
        }.map { "match.\($0) = '\(bindings.match[$0] ?? "")'" }
        if let args = bindings.args { parts.append("args = '\(args)'") }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }
}
