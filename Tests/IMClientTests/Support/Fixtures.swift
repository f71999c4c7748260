import Foundation
import IMClient
import IMProtocol

/// Sample wire values for unit tests.
enum Fixtures {
    static let server = "http://127.0.0.1:8080"
    static let epoch = Timestamp(milliseconds: 1_700_000_000_000)

    static func user(_ name: String, id: Int64 = 1, avatarURL: String = "") -> User {
        User(id: UserID(rawValue: id), username: name, nickname: name.capitalized, avatarURL: avatarURL, createdAt: epoch)
    }

    static func message(_ text: String, seq: Int64 = 1, clientID: String? = nil) -> Message {
        Message(
            id: MessageID(rawValue: 100 + seq), conversationID: ConversationID(rawValue: 7), seq: seq, sender: "alice",
            senderID: UserID(rawValue: 1), text: text, clientMessageID: clientID, createdAt: epoch)
    }

    static func event(_ position: Int64, _ text: String = "hi", type: EventType = .message, reason: String? = nil) -> Event {
        Event(
            position: position, type: type, at: epoch,
            conversation: type == .message
                ? ConversationRef(id: ConversationID(rawValue: 7), kind: .direct, address: .user("bob")) : nil,
            message: type == .message ? message(text, seq: position) : nil, reason: reason)
    }

    static func info(_ name: String, kind: ConversationKind = .group) -> ConversationInfo {
        ConversationInfo(
            id: ConversationID(rawValue: 9), kind: kind, name: name, title: name, memberCount: 1, createdBy: "alice",
            createdAt: epoch)
    }

    /// A JSON answer.
    static func json<T: Encodable>(_ value: T, status: Int = 200) -> TransportResponse {
        let body = (try? WireJSON.encoder().encode(value)) ?? Data()
        return TransportResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// An error answer in the API's envelope, with `Retry-After` when given.
    static func error(
        _ code: ErrorCode, _ message: String = "nope", retryAfter: Int? = nil, field: String? = nil,
        reason: String? = nil
    ) -> TransportResponse {
        var response = json(
            ErrorEnvelope(error: APIError(code, message, retryAfter: retryAfter, field: field, reason: reason)),
            status: code.httpStatus)
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
        return response
    }

    static func batch(_ events: [Event], cursor: String) -> TransportResponse {
        json(EventBatch(events: events, cursor: cursor))
    }

    static let auth = AuthResponse(user: user("alice"), token: "sbt_new", expiresAt: nil)

    static let lost = TransportError(
        code: .connectionLost, message: "connection to 127.0.0.1:8080 lost before a complete response (Empty reply from server)")
    static let refused = TransportError(
        code: .cannotConnect, message: "server not reachable at 127.0.0.1:8080 (connection refused)", requestNotSent: true)
}
