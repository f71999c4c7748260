import Foundation
import IMProtocol
import Templates
import YAMLCoding

/// One `examples:` entry of a rule: an event made up from a few fields, and what the
/// bot is expected to do about it. Run offline by `switchboard test`.
public struct RuleExample: Sendable {
    /// Where the example is written.
    public let location: SourceLocation
    /// Who sends the message or causes the event; required for messages.
    let from: ExampleUser?
    /// The message text.
    let text: String?
    /// Texts the repetitions of `times:` send in turn (`texts: [...]`), instead of `text`.
    var texts: [String]? = nil
    /// What each message is edited to after it is posted (`edit:`): a `message_edited`
    /// event about the same message follows each one.
    var edit: String? = nil
    /// A webhook rule's example: the notifications it sends, in order, each with what it
    /// expects (`payload:` or `payload_file:` with `expect:`, or `notifications:`); nil
    /// for an example of feed events.
    var webhook: [WebhookExampleStep]? = nil
    /// Where it happens; the direct conversation with the sender when nil.
    let conversation: ConversationAddress?
    let event: EventType
    /// The member of a member event; the sender when nil (and the sender is the member
    /// when `from` is nil).
    let member: ExampleUser?
    /// State to start from, on top of the bot's initial state.
    let state: [String: TemplateValue]
    /// The time of the event; a fixed Monday morning when nil, so examples never depend
    /// on the clock.
    let now: Timestamp?
    /// Scripted responses for `http` actions, by their `as` name.
    let http: [String: ScriptedResponse]
    /// How many times the event happens (`times:`), `every` apart; expectations are about
    /// all of them together (a flood, a raid, a strike ladder).
    var times = 1
    var every = ConfigDuration(seconds: 1)
    /// The names used in `http:`, with where they are written, for the loader's check.
    let httpNames: [Located<String>]
    let expectation: Expectation

    /// The time examples run at when they give none: Monday 2025-01-06, 10:00 UTC.
    public static let defaultNow = Timestamp(milliseconds: 1_736_157_600_000)

    /// The text the `repetition`th message says: `texts:` in turn, else `text`.
    func text(at repetition: Int) -> String? {
        guard let texts, !texts.isEmpty else { return text }
        return texts[repetition % texts.count]
    }
}

/// One notification of a webhook rule's example: a body as it arrives on the wire, when
/// it arrives, and what the rules do with it.
struct WebhookExampleStep: Sendable {
    /// Where the step is written.
    let location: SourceLocation
    /// The body; nil for a step in which only time passes (`after:` alone), for held
    /// resolves and dead-man's switches.
    let body: Data?
    /// `inline payload` or the file it was read from, for messages.
    let source: String
    /// Where the payload (or its file name) is written, for errors in the body.
    let payloadMark: YAMLMark
    /// The time since the step before (the first: since the example's `now`).
    let after: ConfigDuration
    let expectation: Expectation
}

/// A user as an example names one: `alice`, or `{username, nickname, is_bot, role, via}`.
struct ExampleUser: Sendable, Hashable {
    /// Who, with their role in the example's group (for `from: {role: …}` and
    /// `member: {role: …}`).
    let person: BotEvent.Person
    /// How a member joined, for `member: {via: …}`.
    let via: JoinVia?
}

/// The response an example scripts for an `http` action.
struct ScriptedResponse: Sendable {
    let status: Int
    /// A mapping or list is sent as JSON; a string as text.
    let body: YAMLValue?
    let headers: [String: String]
}

/// What an example expects.
///
/// Each kind that is given constrains the effects of that kind only: `reply: X` means
/// exactly one reply, with text X, whatever else was sent. `actions:` constrains every
/// message, profile update and http call, in order. `nothing` means no effect at all.
struct Expectation: Sendable {
    var nothing = false
    /// The messages expected of each message action named (`reply:`, `send:`...), in the
    /// order written.
    var messages: [ExpectedMessages] = []
    var profileUpdates: [ExpectedProfile]?
    var state: [OrderedEntry<TemplateValue>]?
    var rules: [Located<String>]?
    var actions: [ExpectedEffect]?
    /// Cases and strikes (`delete: 1`, `strike: 2`, `case: [...]`).
    var moderation: ModerationExpectation?
    /// The incidents a webhook example's notification leaves (`incident:`).
    var incidents: [ExpectedIncident]?
    /// Where `incident:` is written, for the error when a feed example expects one.
    var incidentsMark: YAMLMark?

    /// What is expected of the messages of `kind`; nil when the expectation does not say.
    func messages(_ kind: ActionKind) -> [ExpectedMessage]? {
        messages.first { $0.kind == kind }?.expected
    }
}

/// The messages one message action (`reply`, `send`...) is expected to send, in order.
struct ExpectedMessages: Sendable, Hashable {
    var kind: ActionKind
    var expected: [ExpectedMessage]
}

/// An incident as a webhook example expects it after a notification: fields left nil are
/// not compared.
struct ExpectedIncident: Sendable, Hashable {
    /// The conversation of its living message.
    var to: ConversationAddress?
    /// The alert group (`groupKey`).
    var group: String?
    /// The title its message shows (`DiskFull`).
    var title: String?
    /// `firing` or `resolved`.
    var state: String?
    var firing: Int?
    var resolved: Int?
    /// The alert lines its message shows, with their `•` or `✓`, in order.
    var lines: [String]?
    /// The replies to its message this notification adds (`🔥 1 new: db-11`).
    var replies: [String]?
    /// The whole living message.
    var message: String?
}

/// An expected `send` or `forward`: fields left nil are not compared.
struct ExpectedMessage: Sendable, Hashable {
    var to: ConversationAddress?
    var text: String?
}

/// An expected `update_profile`: only the fields given are compared.
struct ExpectedProfile: Sendable, Hashable {
    var nickname: String?
    var signature: String?
    var avatarURL: String?
    var attrs: [String: String]?
}

/// One item of `expect: {actions: [...]}`.
enum ExpectedEffect: Sendable, Hashable {
    /// A message of a message action (`reply`, `send`...).
    case message(ActionKind, ExpectedMessage)
    case updateProfile(ExpectedProfile)
    /// An http call, by its `as` name or its URL.
    case http(String)
}
