/// What a moderation action did (or, in `dry` and `shadow` mode, would do): the acts
/// the server was asked for, the cases opened, the strike counted, and the messages
/// (warnings, mod-log lines, answers) it sent.
public struct ModerationEffect: Sendable {
    /// The action (`mute`, `strike`, ...).
    public var kind: ActionKind
    /// What went (or would go) to the server, in order.
    public var acts: [ModerationAct] = []
    /// The cases opened; in dry runs numbered 0 and kept nowhere.
    public var cases: [ModerationCase] = []
    /// The strike counted, for a `strike` action.
    public var strike: StrikeOutcome?
    /// The messages sent: a warning, a challenge, mod-log lines, answers to `/case`.
    public var messages: [OutgoingMessage] = []
    /// What happened instead when there was nothing to do (`case #9 is not kept`).
    public var note: String?

    /// `mute alice in group:lobby for 10m; case #3`, one line for logs.
    public var description: String {
        var parts = acts.map(\.description)
        if let strike {
            parts.insert(strike.label + (strike.step.map { " (step \($0 + 1))" } ?? ""), at: 0)
        }
        parts += cases.map { $0.number == 0 ? "would open a case" : "case #\($0.number)" }
        parts += messages.map { "to \($0.to) \"\(ModerationCase.excerpt($0.text, limit: 80))\"" }
        if let note { parts.append(note) }
        return parts.isEmpty ? "\(kind)" : parts.joined(separator: "; ")
    }
}
