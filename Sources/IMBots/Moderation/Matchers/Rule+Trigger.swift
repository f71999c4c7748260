import IMProtocol

extension Rule {
    /// The rule's `schedule` or `quiet` trigger, if it has one (always at the top of its `when`).
    var trigger: TriggerCondition? {
        for condition in when.conditions {
            if case .moderation(.trigger(let trigger)) = condition { return trigger }
        }
        return nil
    }
}
