import IMProtocol

/// Decides which of a bot's rules fire for an event. Pure: no I/O, no clock, no state
/// of its own, so `switchboard test` and `explain` use it exactly as the runner does.
///
/// Rules are indexed by the event kinds they consider and by the command a top-level
/// `command` matcher requires, so an event is only tested against rules that can match
/// it; within a rule, cheap conditions run before expensive ones, and text derived from
/// the event (lowered, normalised, split into words) is computed once, on first use.
public struct RuleEngine: Sendable {
    /// The bot whose rules are evaluated.
    public let bot: BotDefinition
    /// Each rule's conditions, apart from the rest of the rule, so that testing a rule
    /// does not copy it.
    private let conditions: [ConditionSet]
    private let byType: [Slot: Candidates]
    /// Webhook rules by the path they listen on, in rule order.
    private let byPath: [String: [Int]]
    /// What any rule's conditions need to know about the sender (`from: {bots: …}`,
    /// `from: {role: …}`): the runner looks it up before deciding (`BotEvent.sender`,
    /// `BotEvent.senderRole`).
    public let decisionLookups: SenderLookups

    /// An event kind and the kind of conversation it happened in (nil: none).
    private struct Slot: Hashable {
        var type: EventType
        var place: ConversationKind?
    }

    /// Rules that may match one kind of event, in rule order.
    private struct Candidates: Sendable {
        /// Rules without a top-level `command` matcher.
        var plain: [Int] = []
        /// Rules with one, by each command name they accept.
        var byCommand: [String: [Int]] = [:]
    }

    /// Indexes the bot's rules.
    public init(bot: BotDefinition) {
        self.bot = bot
        self.conditions = bot.rules.map(\.when)
        self.decisionLookups = conditions.reduce([]) { $0.union($1.lookups) }
        let kinds = bot.rules.map(\.when.conversationKinds)
        func candidates(for type: EventType, in place: ConversationKind?) -> Candidates {
            var result = Candidates()
            for (index, rule) in bot.rules.enumerated() {
                guard rule.events.accepts(type) else { continue }
                if let allowed = kinds[index] {
                    guard let place, allowed.contains(place) else { continue }
                }
                if let commands = rule.requiredCommands {
                    for name in commands { result.byCommand[name, default: []].append(index) }
                } else {
                    result.plain.append(index)
                }
            }
            return result
        }
        var byType: [Slot: Candidates] = [:]
        // Event kinds this version does not know share the slot `.other("")`, which only
        // rules with `event: any` accept.
        for type in EventType.known + [.other("")] {
            for place in [nil] + ConversationKind.allCases {
                byType[Slot(type: type, place: place)] = candidates(for: type, in: place)
            }
        }
        self.byType = byType
        var byPath: [String: [Int]] = [:]
        for (index, rule) in bot.rules.enumerated() {
            if let webhook = rule.webhook { byPath[webhook.path, default: []].append(index) }
        }
        self.byPath = byPath
    }

    /// Tests rule `index`, recording it when it fires; false when its `stop` ends evaluation.
    private func test(_ index: Int, _ facts: inout EventFacts, into decision: inout Decision) -> Bool {
        var bindings = Bindings.none
        guard conditions[index].matches(&facts, &bindings) else { return true }
        let rule = bot.rules[index]
        decision.firings.append(Decision.Firing(rule: rule, bindings: bindings))
        guard rule.endsEvaluation else { return true }
        decision.stoppedBy = rule.name
        return false
    }

    /// The rules that fire for `event`, in order, honouring `stop` and modes: the one
    /// entry point for every way in (a feed event, a webhook delivery, a `schedule` or
    /// `quiet` trigger), so the runner, `switchboard test` and `explain` decide alike.
    ///
    /// A webhook delivery (`BotEvent.webhook`) fires only the webhook rules of its path,
    /// a trigger only the rules of that trigger (with their other conditions checked);
    /// no feed rule fires for either. The bot's own events, system notices and events in
    /// conversations outside `listen` fire nothing (`Decision.ignored` says which).
    public func decide(_ event: BotEvent, context: BotContext) -> Decision {
        if let path = event.webhookPath { return decide(path: path, event, context: context) }
        if let trigger = event.trigger { return decide(trigger: trigger, event, context: context) }
        if let ignored = ignoredReason(event, context: context) {
            return Decision(bot: bot.name, ignored: ignored)
        }
        var facts = EventFacts(event: event, context: context)
        var decision = Decision(bot: bot.name)
        let slot = Slot(type: EventType.known.contains(event.type) ? event.type : .other(""),
                        place: event.conversation?.kind)
        let candidates = byType[slot] ?? Candidates()

        // Rule indices in order: the plain rules merged with those of the text's command.
        let plain = candidates.plain
        var commandRules: [Int] = []
        if !candidates.byCommand.isEmpty, let command = facts.commandForBot {
            commandRules = candidates.byCommand[command.name] ?? []
        }
        var (p, c) = (0, 0)
        while p < plain.count || c < commandRules.count {
            let index: Int
            if c >= commandRules.count || (p < plain.count && plain[p] < commandRules[c]) {
                index = plain[p]
                p += 1
            } else {
                index = commandRules[c]
                c += 1
            }
            guard test(index, &facts, into: &decision) else { break }
        }
        decision.windowHits = facts.windowHits
        return decision
    }

    /// The webhook rules of `path`, in order. A dead-man's switch's own alert (`trigger`:
    /// the rule's name) fires its rule alone: what its `match` accepts is what stayed away.
    private func decide(path: String, _ event: BotEvent, context: BotContext) -> Decision {
        var decision = Decision(bot: bot.name)
        if let trigger = event.trigger {
            for index in byPath[path] ?? [] where bot.rules[index].name == trigger {
                decision.firings.append(Decision.Firing(rule: bot.rules[index], bindings: .none))
            }
            return decision
        }
        var facts = EventFacts(event: event, context: context)
        for index in byPath[path] ?? [] where !test(index, &facts, into: &decision) { break }
        return decision
    }

    /// The rules whose `schedule` or `quiet` trigger is `trigger`, their other conditions
    /// checked against `event` (made by the timer service).
    private func decide(trigger: String, _ event: BotEvent, context: BotContext) -> Decision {
        if let conversation = event.conversation, !bot.listens(to: conversation) {
            return Decision(bot: bot.name, ignored: .outsideListen(conversation.address.description))
        }
        var decision = Decision(bot: bot.name)
        var facts = EventFacts(event: event, context: context)
        for (index, rule) in bot.rules.enumerated() where rule.trigger?.id == trigger {
            guard test(index, &facts, into: &decision) else { break }
        }
        return decision
    }

    /// Why an event is not considered at all, if it is not.
    func ignoredReason(_ event: BotEvent, context: BotContext) -> Decision.Ignored? {
        if isOwn(event, context: context) { return .ownEvent }
        if event.isSystemMessage { return .systemMessage }
        if let conversation = event.conversation, !bot.listens(to: conversation) {
            return .outsideListen(conversation.address.description)
        }
        return nil
    }

    private func isOwn(_ event: BotEvent, context: BotContext) -> Bool {
        if let actor = event.actor, EventFacts.lowercasedName(actor) == context.bot.username { return true }
        guard let id = context.bot.id else { return false }
        if event.carriesText, let sender = event.event.message?.senderID { return sender == id }
        return event.sender?.id == id
    }
}
