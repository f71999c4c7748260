import IMProtocol

/// What a moderation action does, as written (templates not yet rendered): one case of
/// `ActionSpec`, carried out by `RuleRun+Moderation.swift`.
enum ModerationSpec: Sendable {
    /// `delete: message`: the event's message, for everyone.
    case delete
    /// `mute`, `unmute`, `kick`, `ban`, `unban` of the event's member or sender.
    case member(ModerationAction, MemberActSpec)
    /// `warn: TEXT`: a reply that is also a case.
    case warn(TemplateText)
    /// `approve` / `deny` the join request the event is about.
    case joinRequest(approve: Bool)
    /// `approve: all` / `deny: all`: every join request waiting in the event's group (or
    /// `group`), as after a raid.
    case allJoinRequests(approve: Bool, group: TemplateText?)
    /// `slow_mode: 30s` or `off`.
    case slowMode(ConfigDuration, group: TemplateText?)
    /// `join_policy: approval`.
    case joinPolicy(JoinPolicy, group: TemplateText?)
    case strike(StrikeSpec)
    /// `report: TEXT`: a case and a line in the mod-log; `{text, case: raid}` names the
    /// case's kind, about the group rather than a member (`#5 raid in group:lobby`).
    case report(TemplateText?, kind: String?)
    /// `verify: {text, answer, within, fail}`: a newcomer's challenge.
    case verify(VerifySpec)
    /// `case: "{{args}}"`: answers with the case's line.
    case showCase(TemplateText)
    /// `undo: "{{args}}"`: reverses a mute or ban case.
    case undo(TemplateText)
    /// `strikes: "{{args}}"`: answers with a member's strike counters and their decay.
    case showStrikes(TemplateText)

    var kind: ActionKind {
        switch self {
        case .delete: .delete
        case .member(let action, _):
            switch action {
            case .mute: .mute
            case .unmute: .unmute
            case .kick: .kick
            case .ban: .ban
            default: .unban
            }
        case .warn: .warn
        case .joinRequest(let approve), .allJoinRequests(let approve, _): approve ? .approve : .deny
        case .slowMode: .slowMode
        case .joinPolicy: .joinPolicy
        case .strike: .strike
        case .report: .report
        case .verify: .verify
        case .showCase: .showCase
        case .undo: .undo
        case .showStrikes: .strikes
        }
    }

    /// Every template the action renders, for the unknown-variable check.
    var templates: [TemplateText] {
        switch self {
        case .delete, .joinRequest: []
        case .member(_, let spec): [spec.user, spec.group, spec.reason].compactMap { $0 }
        case .warn(let text), .showCase(let text), .undo(let text), .showStrikes(let text): [text]
        case .allJoinRequests(_, let group): [group].compactMap { $0 }
        case .slowMode(_, let group), .joinPolicy(_, let group): [group].compactMap { $0 }
        case .strike(let spec): spec.escalate.compactMap(\.warning)
        case .report(let text, _): [text].compactMap { $0 }
        case .verify(let spec): [spec.text]
        }
    }
}

/// Whom a member action is for, and how.
struct MemberActSpec: Sendable {
    /// The member; nil: the event's member, or its sender.
    let user: TemplateText?
    /// The group's name; nil: the event's group.
    let group: TemplateText?
    /// How long a mute or ban lasts; nil: until lifted.
    let duration: ConfigDuration?
    let reason: TemplateText?
}

/// `strike: {counter, points, decay, escalate}`.
struct StrikeSpec: Sendable {
    let counter: String
    let points: Int
    /// One point falls off per this much time without a strike; nil: never.
    let decay: ConfigDuration?
    /// What the 1st, 2nd, ... point leads to; the last step repeats past the end.
    let escalate: [EscalationStep]

    var decayMilliseconds: Int64? { decay.map { Int64($0.seconds * 1000) } }
}

/// One step of a strike's escalation.
enum EscalationStep: Sendable {
    case warn(TemplateText?)
    case mute(ConfigDuration?)
    case kick
    case ban(ConfigDuration?)

    var warning: TemplateText? {
        if case .warn(let text) = self { return text }
        return nil
    }

    /// `warn`, `mute 10m`, `kick`, `ban`.
    var description: String {
        switch self {
        case .warn: "warn"
        case .mute(let duration): "mute" + (duration.map { " \($0)" } ?? "")
        case .kick: "kick"
        case .ban(let duration): "ban" + (duration.map { " \($0)" } ?? "")
        }
    }
}

/// `verify: {text, answer, within, fail}`.
struct VerifySpec: Sendable {
    /// The challenge sent in a direct message.
    let text: TemplateText
    /// What the newcomer must answer (compared normalised).
    let answer: String
    let within: ConfigDuration
    /// `kick` or `ban` when no right answer comes in time.
    let fail: ModerationAction
}
