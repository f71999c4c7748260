import IMProtocol

extension RuleEngine {
    /// The rules whose `schedule` or `quiet` trigger is `trigger`, with their other
    /// conditions checked against `event` (made by the timer service), honouring modes.
    public func decide(triggered event: BotEvent, context: BotContext) -> Decision {
        var decision = Decision(bot: bot.name)
        guard let trigger = event.trigger else { return decision }
        if let conversation = event.conversation, !bot.listens(to: conversation) {
            return Decision(bot: bot.name, ignored: .outsideListen(conversation.address.description))
        }
        var facts = EventFacts(event: event, context: context)
        for rule in bot.rules where rule.trigger?.id == trigger {
            var bindings = Bindings.none
            guard rule.when.matches(&facts, &bindings) else { continue }
            decision.firings.append(Decision.Firing(rule: rule, bindings: bindings))
            if rule.endsEvaluation {
                decision.stoppedBy = rule.name
                break
            }
        }
        return decision
    }
}

extension Rule {
    /// The rule's `schedule` or `quiet` trigger, if it has one (always at the top of its `when`).
    var trigger: TriggerCondition? {
        for condition in when.conditions {
            if case .moderation(.trigger(let trigger)) = condition { return trigger }
        }
        return nil
    }
}
