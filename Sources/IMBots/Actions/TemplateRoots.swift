/// The variables every template can read, and how the bare object ones are meant to be
/// used.
enum TemplateRoots {
    /// Built-in roots; a rule's `http` actions add their `as` names for later actions.
    static let builtin: Set<String> = [
        "sender", "message", "conversation", "match", "args", "argv", "member", "state", "bot",
        "now", "event",
    ]

    /// Roots that hold objects, with a field to suggest: `{{now}}` alone renders nothing.
    static let objectFieldExamples: [String: String] = [
        "sender": "sender.nickname", "message": "message.text", "conversation": "conversation.address",
        "member": "member.nickname", "bot": "bot.username", "now": "now.rfc3339", "event": "event.type",
        "match": "match.0", "state": "state.count",
    ]
}
