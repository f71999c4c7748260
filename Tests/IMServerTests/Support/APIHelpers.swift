import Foundation
import IMProtocol
import TestSupport
import Testing

/// Unique account, group and room names, so tests sharing a server never meet.
enum Names {
    /// `prefix-` and six random characters: valid as a username or conversation name.
    static func unique(_ prefix: String) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return prefix + "-" + String((0..<6).map { _ in alphabet.randomElement() ?? "x" })
    }
}

extension TestClient {
    /// Registers an account with a unique name starting with `prefix`.
    func newUser(_ prefix: String, password: String = "correct horse battery")
        async throws -> (client: TestClient, user: User)
    {
        try await register(Names.unique(prefix), password: password)
    }

    /// Sends `text` as a raw body (for malformed JSON and the like).
    func send(_ method: String, _ path: String, raw text: String) async throws -> Answer {
        try await send(method, path, body: Data(text.utf8))
    }

    /// Sends a message and expects 201.
    @discardableResult
    func message(_ address: String, _ text: String, clientID: String? = nil, replyTo: MessageID? = nil)
        async throws -> Message
    {
        let answer = try await send(
            "POST", "/v1/conversations/\(address)/messages",
            json: SendMessageRequest(text: text, clientMessageID: clientID, replyTo: replyTo))
        guard answer.status == 201 else { throw TestFailure("send to \(address): \(answer.status) \(answer.text)") }
        return try answer.decode(Message.self)
    }

    /// One page of history; expects 200.
    func history(_ address: String, before: Int64? = nil, limit: Int? = nil) async throws -> MessagePage {
        var query: [String] = []
        if let before { query.append("before=\(before)") }
        if let limit { query.append("limit=\(limit)") }
        let suffix = query.isEmpty ? "" : "?" + query.joined(separator: "&")
        let answer = try await get("/v1/conversations/\(address)/messages\(suffix)")
        guard answer.status == 200 else { throw TestFailure("history of \(address): \(answer.status) \(answer.text)") }
        return try answer.decode(MessagePage.self)
    }

    /// The sessions list; expects 200.
    func conversations() async throws -> [Conversation] {
        let answer = try await get("/v1/conversations")
        guard answer.status == 200 else { throw TestFailure("conversations: \(answer.status) \(answer.text)") }
        return try answer.decode(ConversationList.self).conversations
    }

    /// Creates a group (201; invite-only unless `join` says otherwise) or a room (201, or
    /// 200 when it exists).
    @discardableResult
    func create(_ kind: ConversationKind, _ name: String, join: JoinPolicy? = nil) async throws -> ConversationInfo {
        let answer = try await send(
            "POST", "/v1/\(kind.rawValue)s", json: CreateConversationRequest(name: name, join: join))
        guard answer.status == 201 || (kind == .room && answer.status == 200) else {
            throw TestFailure("create \(kind) \(name): \(answer.status) \(answer.text)")
        }
        return try answer.decode(ConversationInfo.self)
    }

    /// Joins a group or enters a room; expects 200.
    @discardableResult
    func join(_ kind: ConversationKind, _ name: String) async throws -> ConversationInfo {
        let verb = kind == .group ? "join" : "enter"
        let answer = try await send("POST", "/v1/\(kind.rawValue)s/\(name)/\(verb)")
        guard answer.status == 200 else { throw TestFailure("\(verb) \(name): \(answer.status) \(answer.text)") }
        return try answer.decode(ConversationInfo.self)
    }

    /// Invites `user` to an invite-only group; expects 201.
    func invite(_ user: String, to group: String) async throws {
        let answer = try await send("POST", "/v1/groups/\(group)/invites", json: GroupInviteRequest(user: user))
        guard answer.status == 201 else { throw TestFailure("invite \(user) to \(group): \(answer.status) \(answer.text)") }
    }

    /// Leaves a group or room; expects 204.
    func leave(_ kind: ConversationKind, _ name: String) async throws {
        let answer = try await send("POST", "/v1/\(kind.rawValue)s/\(name)/leave")
        guard answer.status == 204 else { throw TestFailure("leave \(name): \(answer.status) \(answer.text)") }
    }

    /// A poll of the event feed, whatever its answer.
    func poll(_ cursor: String?, timeout: Int = 0, limit: Int? = nil) async throws -> Answer {
        var query: [String] = ["timeout=\(timeout)"]
        if let cursor { query.append("cursor=\(cursor)") }
        if let limit { query.append("limit=\(limit)") }
        // The request's own timeout is only a hang guard, well past the poll's.
        return try await send("GET", "/v1/events?" + query.joined(separator: "&"), timeout: .seconds(timeout + 15))
    }

    /// The current end of the caller's feed.
    func cursor() async throws -> String {
        try await events(after: nil).cursor
    }

    /// A poll that must answer 200.
    func events(after cursor: String?, timeout: Int = 0, limit: Int? = nil) async throws -> EventBatch {
        let answer = try await poll(cursor, timeout: timeout, limit: limit)
        guard answer.status == 200 else { throw TestFailure("poll: \(answer.status) \(answer.text)") }
        return try answer.decode(EventBatch.self)
    }
}

/// Expects `answer` to be the error envelope `{"error":{"code","message",...}}` with the
/// status of `code`, and, when given, its `reason` and `field`.
func expectError(
    _ answer: TestClient.Answer, _ code: ErrorCode, reason: String? = nil, field: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(answer.status == code.httpStatus, "body: \(answer.text)", sourceLocation: sourceLocation)
    #expect(
        answer.header("Content-Type")?.hasPrefix("application/json") == true,
        "Content-Type: \(answer.header("Content-Type") ?? "none")", sourceLocation: sourceLocation)
    guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
        Array(object.keys) == ["error"], let error = object["error"] as? [String: Any]
    else {
        Issue.record("not an error envelope: \(answer.text)", sourceLocation: sourceLocation)
        return
    }
    #expect(error["code"] as? String == code.rawValue, "body: \(answer.text)", sourceLocation: sourceLocation)
    let message = error["message"] as? String ?? ""
    #expect(!message.isEmpty, "an error needs a message: \(answer.text)", sourceLocation: sourceLocation)
    if let reason {
        #expect(error["reason"] as? String == reason, "body: \(answer.text)", sourceLocation: sourceLocation)
    }
    if let field {
        #expect(error["field"] as? String == field, "body: \(answer.text)", sourceLocation: sourceLocation)
    }
}

/// Expects a status, showing the body when it differs.
func expectStatus(_ answer: TestClient.Answer, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(answer.status == status, "body: \(answer.text)", sourceLocation: sourceLocation)
}

extension TestServer {
    /// A gauge or counter read from `/metrics` (nil when absent).
    func metric(_ name: String, token: String? = nil) async throws -> Int? {
        let headers = token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []
        let answer = try await client.send("GET", "/metrics", headers: headers)
        guard answer.status == 200 else { throw TestFailure("metrics: \(answer.status) \(answer.text)") }
        for line in answer.text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.dropFirst(name.count + 1))
        }
        return nil
    }
}

/// The bytes of a minimal image of each accepted kind (only the leading bytes matter).
enum ImageBytes {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 64)
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 64)
    static let gif: [UInt8] = Array("GIF89a".utf8) + Array(repeating: 7, count: 64)
    static let webp: [UInt8] = Array("RIFF".utf8) + [0x40, 0, 0, 0] + Array("WEBPVP8 ".utf8) + Array(repeating: 7, count: 64)
}

/// One accepted image kind, as a test argument.
struct ImageSample: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var type: String
    var testDescription: String { name }

    static let all = [
        ImageSample(name: "png", bytes: ImageBytes.png, type: "image/png"),
        ImageSample(name: "jpeg", bytes: ImageBytes.jpeg, type: "image/jpeg"),
        ImageSample(name: "gif", bytes: ImageBytes.gif, type: "image/gif"),
        ImageSample(name: "webp", bytes: ImageBytes.webp, type: "image/webp"),
    ]
}
