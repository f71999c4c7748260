/// The matchers moderation adds to a rule's `when`: `rate`, `repeated`, `links`,
/// `mentions`, `state`, and the triggers `schedule` and `quiet`. One case of `Condition`,
/// so the engine's own matchers and these stay apart.
enum ModerationCondition: Sendable {
    case window(WindowCondition)
    case count(CountCondition)
    case state(StateCondition)
    case trigger(TriggerCondition)

    func matches(_ facts: inout EventFacts) -> Bool {
        switch self {
        case .window(let window): window.matches(&facts)
        case .count(let count): count.matches(&facts)
        case .state(let state): state.matches(&facts)
        case .trigger(let trigger): trigger.matches(&facts)
        }
    }

    func failure(_ facts: inout EventFacts) -> String {
        switch self {
        case .window(let window): window.failure(&facts)
        case .count(let count): count.failure(&facts)
        case .state(let state): state.failure(&facts)
        case .trigger(let trigger): trigger.failure(&facts)
        }
    }

    var summary: String {
        switch self {
        case .window(let window): window.summary
        case .count(let count): count.summary
        case .state(let state): state.summary
        case .trigger(let trigger): trigger.summary
        }
    }

    var cost: Int {
        switch self {
        case .window: WindowCondition.cost
        case .count: CountCondition.cost
        case .state: StateCondition.cost
        case .trigger: TriggerCondition.cost
        }
    }
}
