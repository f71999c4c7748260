import Templates

/// What the runner must look up about an event's sender before rules can see it: a
/// message event names its sender only by username.
public struct SenderLookups: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The sender's profile: `from: {bots: …}`, and templates reading `sender.*` beyond
    /// `sender.username`.
    public static let profile = SenderLookups(rawValue: 1)
    /// The sender's role in the event's group: `from: {role: …}`.
    public static let role = SenderLookups(rawValue: 2)
    /// The role of a member event's member in its group: `member: {role: …}`.
    public static let memberRole = SenderLookups(rawValue: 4)
    /// When the sender joined the event's group: `from: {joined_within: …}`.
    public static let joined = SenderLookups(rawValue: 8)

    /// What the templates of `actions` read about the sender.
    static func of(_ actions: [Action]) -> SenderLookups {
        let templates = actions.flatMap { action -> [TemplateText] in
            if case .forward(let spec) = action.spec, spec.text == nil { return action.spec.templates + [RuleRun.forwardText] }
            return action.spec.templates
        }
        let readsProfile = templates.contains { text in
            text.template.references.contains { reference in
                reference.path.first == "sender" && reference.path.dropFirst().first != "username"
            }
        }
        return readsProfile ? .profile : []
    }
}
