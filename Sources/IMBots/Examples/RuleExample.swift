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
    var replies: [String]?
    var sends: [ExpectedMessage]?
    var forwards: [ExpectedMessage]?
    var profileUpdates: [ExpectedProfile]?
    var state: [OrderedEntry<TemplateValue>]?
    var rules: [Located<String>]?
    var actions: [ExpectedEffect]?
    /// Cases and strikes (`delete: 1`, `strike: 2`, `case: [...]`).
    var moderation: ModerationExpectation?
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
    case reply(String)
    case send(ExpectedMessage)
    case forward(ExpectedMessage)
    case updateProfile(ExpectedProfile)
    /// An http call, by its `as` name or its URL.
    case http(String)
}
