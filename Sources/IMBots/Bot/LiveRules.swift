import Lifecycle
import Synchronization

/// A bot's rules as they are now, swapped whole when a reload brings new ones: the
/// definition, its compiled engine, and the send budgets and loop guard its `limits`
/// and `loop_guard` describe.
final class LiveRules: Sendable {
    /// One consistent set; an event is handled entirely with the set it started with.
    struct Current: Sendable {
        let definition: BotDefinition
        let engine: RuleEngine
        let budget: SendBudget
        let loopGuard: LoopGuard
    }

    private let current: Mutex<Current>
    private let time: any TimeSource
    private let listeners = Mutex<[@Sendable () -> Void]>([])

    init(_ definition: BotDefinition, time: any TimeSource) {
        self.time = time
        current = Mutex(Self.make(definition, time: time))
    }

    /// The set in use now.
    var now: Current { current.withLock { $0 } }

    /// Puts new rules (of the same account) in place; events after this use them.
    func replace(with definition: BotDefinition) {
        let new = Self.make(definition, time: time)
        current.withLock { $0 = new }
        for listener in listeners.withLock({ $0 }) { listener() }
    }

    /// Calls `listener` after every ``replace(with:)`` (a service that serves what the
    /// rules name, such as webhook paths).
    func onReplace(_ listener: @escaping @Sendable () -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    private static func make(_ definition: BotDefinition, time: any TimeSource) -> Current {
        Current(
            definition: definition, engine: RuleEngine(bot: definition),
            budget: SendBudget(definition.limits, time: time),
            loopGuard: LoopGuard(maxPerMinute: definition.maxRepliesPerMinute, time: time))
    }
}
