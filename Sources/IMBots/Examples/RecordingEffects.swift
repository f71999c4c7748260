import Foundation
import IMClient
import IMProtocol
import Synchronization

/// Effects that perform nothing: they record every message, profile update and request,
/// and answer requests from a script. Used by `switchboard test` and by tests.
public final class RecordingEffects: BotEffects {
    /// One recorded effect.
    public enum Record: Sendable {
        /// A message handed to `send`.
        case message(OutgoingMessage)
        /// A profile update.
        case profile(ProfileUpdate)
        /// An HTTP request.
        case http(TransportRequest)
        /// A moderation act.
        case moderation(ModerationAct)
    }

    /// Produces the response to a request.
    public typealias Responder = @Sendable (TransportRequest) -> TransportResponse

    private let responder: Responder
    private let recorded = Mutex<[Record]>([])
    /// The responses of ``init(responses:)``, by `Idempotency-Key`.
    private let scripted: Script?

    private final class Script: Sendable {
        let responses: Mutex<[String: TransportResponse]>
        init(_ responses: [String: TransportResponse]) { self.responses = Mutex(responses) }
    }
    /// Strikes and cases, in memory.
    public let moderation: ModerationBook?

    /// Answers every request with `responder`.
    public init(responder: @escaping Responder, moderation: ModerationBook = ModerationBook()) {
        self.responder = responder
        self.scripted = nil
        self.moderation = moderation
    }

    private init(script: Script, moderation: ModerationBook) {
        self.scripted = script
        self.moderation = moderation
        self.responder = { request in
            request.header("Idempotency-Key").flatMap { key in script.responses.withLock { $0[key] } }
                ?? TransportResponse(status: 200)
        }
    }

    /// Answers requests by their `Idempotency-Key` header (which names the bot, event,
    /// rule and action); any other request gets 200 with an empty body. More responses
    /// can be added with ``script(_:)``.
    ///
    /// - Parameter moderation: the strikes and cases to start from (`SavedBotState`).
    public convenience init(responses: [String: TransportResponse] = [:], moderation: ModerationBook = ModerationBook()) {
        self.init(script: Script(responses), moderation: moderation)
    }

    /// Adds responses by `Idempotency-Key` (effects made with ``init(responses:)`` only).
    public func script(_ responses: [String: TransportResponse]) {
        scripted?.responses.withLock { $0.merge(responses) { _, new in new } }
    }

    /// Everything recorded so far, in order.
    public var records: [Record] { recorded.withLock { $0 } }

    /// The recorded messages, in order.
    public var messages: [OutgoingMessage] {
        records.compactMap { record in
            if case .message(let message) = record { return message }
            return nil
        }
    }

    /// Records the message; returns nil, as no server stored it.
    public func send(_ message: OutgoingMessage) async throws -> Message? {
        recorded.withLock { $0.append(.message(message)) }
        return nil
    }

    /// Records the update.
    public func updateProfile(_ update: ProfileUpdate) async throws {
        recorded.withLock { $0.append(.profile(update)) }
    }

    /// Records the request and answers it from the script.
    public func http(_ request: TransportRequest) async throws -> TransportResponse {
        recorded.withLock { $0.append(.http(request)) }
        return responder(request)
    }

    /// Records the act.
    public func moderate(_ act: ModerationAct) async throws {
        recorded.withLock { $0.append(.moderation(act)) }
    }

    /// The recorded moderation acts, in order.
    public var acts: [ModerationAct] {
        records.compactMap { record in
            if case .moderation(let act) = record { return act }
            return nil
        }
    }
}
