import Foundation
import IMClient

/// Sending, editing, replying and redacting. Every write carries a transaction id the
/// caller chooses: the homeserver answers a repeat of one (same login, same id) with the
/// first event instead of a second, so a reply sent again after a crash shows once.
extension MatrixClient {
    /// Sends `m.text` (or `m.notice`, for bots that answer people) into `roomID`; with
    /// `replyTo`, as a reply to that event (`m.in_reply_to`).
    @discardableResult
    public func sendText(_ body: String, to roomID: String, kind: TextKind = .text, replyTo: MatrixEventID? = nil,
                         transactionID: String) async throws(IMClientError) -> MatrixEventID {
        var content: [String: JSONValue] = ["msgtype": .string(kind.rawValue), "body": .string(body)]
        if let replyTo { content["m.relates_to"] = .object(["m.in_reply_to": .object(["event_id": .string(replyTo)])]) }
        return try await send(.object(content), type: "m.room.message", to: roomID, transactionID: transactionID)
    }

    /// Replaces the text of the bot's own message `original` (`m.replace`): clients show
    /// the new text in its place; `body` falls back to `* text` for those that cannot.
    @discardableResult
    public func edit(_ original: MatrixEventID, in roomID: String, to body: String, kind: TextKind = .text,
                     transactionID: String) async throws(IMClientError) -> MatrixEventID {
        let content: JSONValue = .object([
            "msgtype": .string(kind.rawValue),
            "body": .string("* " + body),
            "m.new_content": .object(["msgtype": .string(kind.rawValue), "body": .string(body)]),
            "m.relates_to": .object(["rel_type": .string("m.replace"), "event_id": .string(original)]),
        ])
        return try await send(content, type: "m.room.message", to: roomID, transactionID: transactionID)
    }

    /// Sends an event of `type` with `content`.
    @discardableResult
    public func send(_ content: JSONValue, type: String, to roomID: String, transactionID: String)
        async throws(IMClientError) -> MatrixEventID
    {
        try Self.checkTransactionID(transactionID)
        let request = try MatrixRequest(
            "PUT", MatrixPath.room(roomID) + "/send/" + MatrixPath.segment(type) + "/" + MatrixPath.segment(transactionID)
        ).json(content)
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: EventAnswer.self).eventID
        }
    }

    /// Removes the content of `eventID` for everyone (the bot needs the room's `redact`
    /// level for others' events).
    @discardableResult
    public func redact(_ eventID: MatrixEventID, in roomID: String, reason: String? = nil, transactionID: String)
        async throws(IMClientError) -> MatrixEventID
    {
        try Self.checkTransactionID(transactionID)
        var body: [String: String] = [:]
        if let reason { body["reason"] = reason }
        let request = try MatrixRequest(
            "PUT", MatrixPath.room(roomID) + "/redact/" + MatrixPath.segment(eventID) + "/" + MatrixPath.segment(transactionID)
        ).json(body)
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: EventAnswer.self).eventID
        }
    }

    /// Transaction ids go into a path: printable, bounded.
    static func checkTransactionID(_ id: String) throws(IMClientError) {
        guard !id.isEmpty, id.utf8.count <= 255, !id.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F })
        else {
            throw IMClientError(.invalidArgument, "a transaction id must be 1 to 255 printable ASCII characters: '\(id.prefix(40))'")
        }
    }

    /// `m.text` for ordinary messages, `m.notice` for automated ones (which clients
    /// and other bots are asked not to answer).
    public enum TextKind: String, Sendable {
        case text = "m.text"
        case notice = "m.notice"
    }
}

struct EventAnswer: Decodable {
    var eventID: String
    enum CodingKeys: String, CodingKey { case eventID = "event_id" }
}
