/// How a rule that matches takes effect.
public enum RuleMode: String, Sendable, Hashable, CaseIterable, Decodable {
    /// Its actions are performed; a `stop` in it ends the event's evaluation.
    case enforce
    /// Its actions are rendered, logged and counted but not performed; a `stop` in it still
    /// ends the event's evaluation, so the rule set behaves as it would when enforced,
    /// minus this rule's effects.
    case dry
    /// Like `dry`, and invisible to the other rules: its `stop` is ignored, so later
    /// rules run exactly as if the shadow rule did not exist. For trying out a new rule
    /// next to the rules already live.
    case shadow
}
