import IMClient
import IMProtocol

/// What actions do to the world: the seam between the pure rule engine and the runner.
///
/// The runner's implementation talks to the server through the client core (and retries
/// inside it); `RecordingEffects` records and answers from a script, for examples and tests.
public protocol BotEffects: Sendable {
    /// Sends a message; returns it as stored when the server says so.
    func send(_ message: OutgoingMessage) async throws -> Message?
    /// Changes the bot's own profile.
    func updateProfile(_ update: ProfileUpdate) async throws
    /// Makes an outgoing HTTP request (`http` action); any status is a response.
    func http(_ request: TransportRequest) async throws -> TransportResponse
    /// Carries out a moderation act on the server (the bot must be an admin of the group).
    func moderate(_ act: ModerationAct) async throws
    /// Where strikes and cases are kept; nil where there is no such place.
    var moderation: ModerationBook? { get }
    /// Opens or updates the living message of the payload's alert group (`incident`
    /// actions of webhook rules).
    func incident(_ request: IncidentRequest) async throws
}

/// Effects that keep the messages a run decided, for the journal and then the outbox to
/// take once the run is done (the runner's and the alert bridge's).
protocol QueuingEffects: BotEffects {
    /// The messages decided, in order.
    var messages: [OutgoingMessage] { get }
}

extension BotEffects {
    /// Effects without a server to moderate on.
    public func moderate(_ act: ModerationAct) async throws {
        throw ModerationUnavailable()
    }

    /// No strikes or cases are kept.
    public var moderation: ModerationBook? { nil }

    /// Effects outside the alert bridge have no incidents.
    public func incident(_ request: IncidentRequest) async throws {
        throw IncidentsUnavailable()
    }
}

/// A moderation action where the effects cannot moderate.
struct ModerationUnavailable: Error, CustomStringConvertible {
    var description: String { "these effects cannot moderate" }
}

/// What an `incident` action asks for: the living message of the payload's alert group
/// in a conversation.
public struct IncidentRequest: Sendable {
    /// The conversation the message lives in.
    public var to: ConversationAddress
    /// The rule and the index of its action: with `to`, which incidents are one's own.
    public var rule: String
    public var actionIndex: Int
    /// The flap damper's hold.
    public var flapHold: Duration
    /// The title and line templates.
    public var templates: IncidentRenderer.Templates
}

/// `incident` where the effects keep no incidents (examples, `explain`).
struct IncidentsUnavailable: Error, CustomStringConvertible {
    var description: String { "incidents are kept by the runner's alert bridge only" }
}
