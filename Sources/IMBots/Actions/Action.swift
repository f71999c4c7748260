/// The kinds of actions a rule can take.
public enum ActionKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A message to the event's conversation.
    case reply
    /// A reply only the event's sender sees (a notice: in nobody's history).
    case notice
    /// A message to the event's conversation or to another one.
    case send
    /// The event's message, passed on to another conversation.
    case forward
    /// A change of the bot's own profile.
    case updateProfile = "update_profile"
    /// An outgoing HTTP request.
    case http
    /// State keys set to values.
    case set
    /// A state counter increased.
    case increment
    /// No later rule for this event.
    case stop
    /// Moderation (`IMBots/Moderation`): the event's message deleted for everyone.
    case delete
    /// A member muted, unmuted, kicked, banned or unbanned.
    case mute, unmute, kick, ban, unban
    /// A reply that is also a case.
    case warn
    /// A join request approved or denied.
    case approve, deny
    /// A group's slow mode or join policy changed.
    case slowMode = "slow_mode"
    case joinPolicy = "join_policy"
    /// A point on a member's strike counter, and the escalation it reaches.
    case strike
    /// A case and a line in the mod-log.
    case report
    /// A newcomer's challenge.
    case verify
    /// A case's line shown (`/case N`).
    case showCase = "case"
    /// A mute or ban case reversed (`/undo N`).
    case undo
    /// A member's strike counters shown (`/strikes @user`).
    case strikes
    /// An alert group's living message (webhook rules).
    case incident

    /// The name as written in bot files.
    public var description: String { rawValue }
}

/// One action of a rule's `do` list, with its templates parsed.
public struct Action: Sendable {
    /// What kind of action it is.
    public let kind: ActionKind
    /// Where it is written.
    public let location: SourceLocation
    let spec: ActionSpec

    init(spec: ActionSpec, location: SourceLocation) {
        self.spec = spec
        self.location = location
        self.kind = spec.kind
    }
}

/// What an action does, as written (templates not yet rendered).
enum ActionSpec: Sendable {
    case reply(ReplySpec)
    case notice(ReplySpec)
    case send(SendSpec)
    case forward(ForwardSpec)
    case updateProfile(UpdateProfileSpec)
    case http(HTTPSpec)
    case set([StateAssignment])
    case increment(IncrementSpec)
    case stop
    case moderation(ModerationSpec)
    case incident(IncidentSpec)

    var kind: ActionKind {
        switch self {
        case .reply: .reply
        case .notice: .notice
        case .send: .send
        case .forward: .forward
        case .updateProfile: .updateProfile
        case .http: .http
        case .set: .set
        case .increment: .increment
        case .stop: .stop
        case .moderation(let spec): spec.kind
        case .incident: .incident
        }
    }

    /// Every template the action renders, for the unknown-variable check.
    var templates: [TemplateText] {
        switch self {
        case .reply(let spec), .notice(let spec):
            return [spec.text]
        case .send(let spec):
            return [spec.to?.text, spec.text].compactMap { $0 }
        case .forward(let spec):
            return [spec.to.text, spec.text].compactMap { $0 }
        case .updateProfile(let spec):
            return [spec.nickname, spec.signature, spec.avatarURL].compactMap { $0 } + spec.attrs.map(\.value)
        case .http(let spec):
            var all = [spec.url] + spec.headers.map(\.value)
            switch spec.body {
            case .none: break
            case .json(let value): all += value.templates
            case .text(let text): all.append(text)
            }
            return all
        case .set(let assignments):
            return assignments.flatMap(\.value.templates)
        case .increment, .stop:
            return []
        case .moderation(let spec):
            return spec.templates
        case .incident(let spec):
            return [spec.to.text] + [spec.title, spec.line].compactMap { $0 }
        }
    }
}

/// `incident: {to, flap_hold, title, line}`: the living message of each alert group.
struct IncidentSpec: Sendable {
    let to: AddressTemplate
    /// How long a resolve is held before it shows (the flap damper).
    let flapHold: Duration
    /// The title template (`{{incident.commonLabels.alertname}}`); nil: the built-in one.
    let title: TemplateText?
    /// One alert's line (`{{alert.labels.instance}}: {{alert.annotations.summary}}`).
    let line: TemplateText?
}

/// `reply: TEXT` or `reply: {text, quote}`; `notice:` takes the same.
struct ReplySpec: Sendable {
    let text: TemplateText
    /// Whether the reply quotes the message it answers (`reply_to`).
    let quote: Bool
}

/// `send: TEXT` (to the event's conversation) or `send: {to, text}`.
struct SendSpec: Sendable {
    let to: AddressTemplate?
    let text: TemplateText
}

/// `forward: ADDRESS` or `forward: {to, text}`.
struct ForwardSpec: Sendable {
    let to: AddressTemplate
    /// The text; the default names the sender, the conversation and the message.
    let text: TemplateText?
}

/// `update_profile: {nickname, signature, avatar_url, attrs}`.
struct UpdateProfileSpec: Sendable {
    let nickname: TemplateText?
    let signature: TemplateText?
    let avatarURL: TemplateText?
    let attrs: [OrderedEntry<TemplateText>]
}

/// One `key: value` of `set:`.
struct StateAssignment: Sendable {
    let key: StateKey
    let value: ValueTemplate
}

/// `increment: KEY` or `increment: {key, by}`.
struct IncrementSpec: Sendable {
    let key: StateKey
    let by: Int
}

/// A state key; dots reach into objects (`spam.count`).
struct StateKey: Sendable, Hashable, CustomStringConvertible {
    let path: [String]

    var description: String { path.joined(separator: ".") }
}

/// A conversation address that may be a template (`to: "group:{{args}}"`).
struct AddressTemplate: Sendable {
    let text: TemplateText
}

/// A key and value from a mapping, in the order written.
struct OrderedEntry<Value: Sendable>: Sendable {
    let key: String
    let value: Value
}
