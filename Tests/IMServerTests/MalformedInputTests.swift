import Foundation
import IMProtocol
import TestSupport
import Testing

/// Bad input of every kind gets a 400 (or the status its kind calls for) that names the
/// problem, and changes nothing.
@Suite(.sharedServer) struct MalformedInputTests {
    let server: TestServer
    init() throws { server = try SharedServer.current }

    /// A request the server must refuse. `{group}` in the path is replaced by a group the
    /// caller is in.
    struct BadInput: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var path: String
        var body: [UInt8]?
        var code: ErrorCode = .invalidRequest
        var field: String?
        var testDescription: String { "\(name): \(method) \(path)" }

        init(_ name: String, _ method: String, _ path: String, json: String? = nil, bytes: [UInt8]? = nil,
             code: ErrorCode = .invalidRequest, field: String? = nil) {
            self.name = name
            self.method = method
            self.path = path
            self.body = bytes ?? json.map { Array($0.utf8) }
            self.code = code
            self.field = field
        }
    }

    static let send = "/v1/conversations/{group}/messages"
    static let long4097 = String(repeating: "x", count: 4097)
    static let long65 = String(repeating: "n", count: 65)

    static let messageBodies: [BadInput] = [
        BadInput("invalid JSON", "POST", send, json: #"{"text": "hi""#),
        BadInput("a list instead of an object", "POST", send, json: "[1, 2]"),
        BadInput("a bare string", "POST", send, json: #""hello""#),
        BadInput("text of the wrong type", "POST", send, json: #"{"text": 5}"#, field: "text"),
        BadInput("text missing", "POST", send, json: "{}", field: "text"),
        BadInput("text null", "POST", send, json: #"{"text": null}"#, field: "text"),
        BadInput("text empty", "POST", send, json: #"{"text": ""}"#, field: "text"),
        BadInput("text only spaces", "POST", send, json: #"{"text": "  \n "}"#, field: "text"),
        BadInput("text too long", "POST", send, json: #"{"text": "\#(long4097)"}"#, field: "text"),
        BadInput("text with a NUL", "POST", send, json: #"{"text": "a\u0000b"}"#, field: "text"),
        BadInput("text with an escape character", "POST", send, json: #"{"text": "a\u001bb"}"#, field: "text"),
        BadInput("invalid UTF-8 in a string", "POST", send, bytes: Array(#"{"text": ""#.utf8) + [0xFF, 0xFE, 0x80] + Array(#""}"#.utf8)),
        BadInput("a lone surrogate escape", "POST", send, json: #"{"text": "\ud800"}"#),
        BadInput("empty body", "POST", send, json: ""),
        BadInput("client_msg_id too long", "POST", send, json: #"{"text": "x", "client_msg_id": "\#(String(repeating: "c", count: 129))"}"#, field: "client_msg_id"),
        BadInput("client_msg_id empty", "POST", send, json: #"{"text": "x", "client_msg_id": ""}"#, field: "client_msg_id"),
        BadInput("reply_to of the wrong type", "POST", send, json: #"{"text": "x", "reply_to": true}"#, field: "reply_to"),
        BadInput("reply_to zero", "POST", send, json: #"{"text": "x", "reply_to": 0}"#, field: "reply_to"),
        BadInput("read seq missing", "POST", "/v1/conversations/{group}/read", json: "{}", field: "seq"),
        BadInput("read seq negative", "POST", "/v1/conversations/{group}/read", json: #"{"seq": -1}"#, field: "seq"),
        BadInput("read seq a string", "POST", "/v1/conversations/{group}/read", json: #"{"seq": "1"}"#, field: "seq"),
        BadInput("deeply nested JSON", "POST", send, json: String(repeating: "[", count: 100_000)),
    ]

    static let accountBodies: [BadInput] = [
        BadInput("username empty", "POST", "/v1/register", json: #"{"username": "", "password": "long enough"}"#, field: "username"),
        BadInput("username too long", "POST", "/v1/register", json: #"{"username": "\#(String(repeating: "u", count: 33))", "password": "long enough"}"#, field: "username"),
        BadInput("username with a space", "POST", "/v1/register", json: #"{"username": "al ice", "password": "long enough"}"#, field: "username"),
        BadInput("username with a slash", "POST", "/v1/register", json: #"{"username": "al/ice", "password": "long enough"}"#, field: "username"),
        BadInput("username with a colon", "POST", "/v1/register", json: #"{"username": "user:x", "password": "long enough"}"#, field: "username"),
        BadInput("username starting with a dot", "POST", "/v1/register", json: #"{"username": ".alice", "password": "long enough"}"#, field: "username"),
        BadInput("username not ASCII", "POST", "/v1/register", json: #"{"username": "ålice", "password": "long enough"}"#, field: "username"),
        BadInput("username of the wrong type", "POST", "/v1/register", json: #"{"username": 7, "password": "long enough"}"#, field: "username"),
        BadInput("password missing", "POST", "/v1/register", json: #"{"username": "nopass"}"#, field: "password"),
        BadInput("password too short", "POST", "/v1/register", json: #"{"username": "shortpw", "password": "1234567"}"#, field: "password"),
        BadInput("nickname empty", "POST", "/v1/register", json: #"{"username": "nonick", "password": "long enough", "nickname": ""}"#, field: "nickname"),
        BadInput("nickname too long", "POST", "/v1/register", json: #"{"username": "longnick", "password": "long enough", "nickname": "\#(long65)"}"#, field: "nickname"),
        BadInput("nickname with a newline", "POST", "/v1/register", json: #"{"username": "nlnick", "password": "long enough", "nickname": "a\nb"}"#, field: "nickname"),
        BadInput("device too long", "POST", "/v1/login", json: #"{"username": "x", "password": "long enough", "device": "\#(long65)"}"#, field: "device"),
        BadInput("login without a password", "POST", "/v1/login", json: #"{"username": "x"}"#, field: "password"),
        BadInput("profile nickname empty", "PATCH", "/v1/me", json: #"{"nickname": ""}"#, field: "nickname"),
        BadInput("profile nickname too long", "PATCH", "/v1/me", json: #"{"nickname": "\#(long65)"}"#, field: "nickname"),
        BadInput("profile signature too long", "PATCH", "/v1/me", json: #"{"signature": "\#(String(repeating: "s", count: 257))"}"#, field: "signature"),
        BadInput("profile attrs not strings", "PATCH", "/v1/me", json: #"{"attrs": {"a": 1}}"#, field: "attrs.a"),
        BadInput("profile attrs too many", "PATCH", "/v1/me", json: #"{"attrs": {\#((0...32).map { "\"k\($0)\": \"v\"" }.joined(separator: ", "))}}"#, field: "attrs"),
        BadInput("password change with a short password", "PUT", "/v1/me/password", json: #"{"old_password": "correct horse battery", "new_password": "short"}"#, field: "password"),
    ]

    static let conversationBodies: [BadInput] = [
        BadInput("group name empty", "POST", "/v1/groups", json: #"{"name": ""}"#, field: "name"),
        BadInput("group name too long", "POST", "/v1/groups", json: #"{"name": "\#(String(repeating: "g", count: 65))"}"#, field: "name"),
        BadInput("group name with a space", "POST", "/v1/groups", json: #"{"name": "my group"}"#, field: "name"),
        BadInput("group name with a colon", "POST", "/v1/groups", json: #"{"name": "group:x"}"#, field: "name"),
        BadInput("group name with dots and a slash", "POST", "/v1/groups", json: #"{"name": "../x"}"#, field: "name"),
        BadInput("room name not ASCII", "POST", "/v1/rooms", json: #"{"name": "café"}"#, field: "name"),
        BadInput("group title too long", "POST", "/v1/groups", json: #"{"name": "okname", "title": "\#(long65)"}"#, field: "title"),
        BadInput("group logo not a URL", "PATCH", "/v1/groups/{name}", json: #"{"logo_url": "file:///etc/passwd"}"#, field: "logo_url"),
        BadInput("group title empty", "PATCH", "/v1/groups/{name}", json: #"{"title": ""}"#, field: "title"),
        BadInput("group description too long", "PATCH", "/v1/groups/{name}", json: #"{"description": "\#(String(repeating: "d", count: 1025))"}"#, field: "description"),
    ]

    static let queries: [BadInput] = [
        BadInput("history limit zero", "GET", "/v1/conversations/{group}/messages?limit=0", field: "limit"),
        BadInput("history limit negative", "GET", "/v1/conversations/{group}/messages?limit=-1", field: "limit"),
        BadInput("history limit too large", "GET", "/v1/conversations/{group}/messages?limit=201", field: "limit"),
        BadInput("history limit not a number", "GET", "/v1/conversations/{group}/messages?limit=ten", field: "limit"),
        BadInput("history limit overflowing", "GET", "/v1/conversations/{group}/messages?limit=99999999999999999999", field: "limit"),
        BadInput("a limit given twice, the first empty", "GET", "/v1/directory/groups?q=&limit=&limit=-1&after=", field: "limit"),
        BadInput("a search given twice", "GET", "/v1/directory/groups?q=a&q=b", field: "q"),
        BadInput("history before zero", "GET", "/v1/conversations/{group}/messages?before=0", field: "before"),
        BadInput("history before negative", "GET", "/v1/conversations/{group}/messages?before=-5", field: "before"),
        BadInput("events limit zero", "GET", "/v1/events?limit=0", field: "limit"),
        BadInput("events limit too large", "GET", "/v1/events?limit=1001", field: "limit"),
        BadInput("events timeout negative", "GET", "/v1/events?timeout=-1", field: "timeout"),
        BadInput("events timeout too long", "GET", "/v1/events?timeout=51", field: "timeout"),
        BadInput("events timeout not a number", "GET", "/v1/events?timeout=soon", field: "timeout"),
        BadInput("an unknown kind of address", "GET", "/v1/conversations/channel:x/messages", field: "conversation"),
        BadInput("an address without a name", "GET", "/v1/conversations/group:/messages", field: "conversation"),
        BadInput("id zero", "GET", "/v1/conversations/0", field: "conversation"),
        BadInput("id negative", "GET", "/v1/conversations/-3", field: "conversation"),
        BadInput("id too large", "GET", "/v1/conversations/99999999999999999999", field: "conversation"),
    ]

    static let routes: [BadInput] = [
        BadInput("unknown path", "GET", "/v1/nothing", code: .notFound),
        // `/` is the web client's page (WebTests); other paths outside /v1 are not found.
        BadInput("a page that is not there", "GET", "/index.php", code: .notFound),
        BadInput("a web client file that is not there", "GET", "/web/nothing.js", code: .notFound),
        BadInput("another API version", "GET", "/v2/me", code: .notFound),
        BadInput("too deep a path", "GET", "/v1/conversations/{group}/messages/1/2", code: .notFound),
        BadInput("an unknown user", "GET", "/v1/users/nobody-here", code: .notFound),
    ]

    static let all = messageBodies + accountBodies + conversationBodies + queries + routes

    @Test(arguments: all)
    func isRefused(_ input: BadInput) async throws {
        let (alice, _) = try await server.client.newUser("bad")
        let group = Names.unique("g")
        try await alice.create(.group, group)
        let path = input.path.replacingOccurrences(of: "{group}", with: "group:\(group)")
            .replacingOccurrences(of: "{name}", with: group)
        let answer = try await alice.send(input.method, path, body: input.body.map { Data($0) })
        expectError(answer, input.code, field: input.field)
        // Nothing was sent: the group holds only its creation notice.
        let history = try await alice.history("group:\(group)").messages
        #expect(history.map(\.type) == [.system])
    }

    @Test func textAtTheLengthLimitIsAccepted() async throws {
        let (alice, _) = try await server.client.newUser("limit")
        let (_, bob) = try await server.client.newUser("bob")
        let text = String(repeating: "é", count: Limits.messageTextLength.upperBound)
        #expect(try await alice.message("user:\(bob.username)", text).text == text)
    }

    @Test func namesAtTheLengthLimitAreAccepted() async throws {
        let name = String(repeating: "a", count: 26) + Names.unique("").dropFirst()  // 32 characters
        try #require(name.count == Limits.usernameLength.upperBound)
        let (alice, user) = try await server.client.register(name)
        #expect(user.username == name)
        let group = String(repeating: "g", count: 57) + Names.unique("")
        try #require(group.count == Limits.conversationNameLength.upperBound)
        #expect(try await alice.create(.group, group).name == group)
    }

    @Test func unknownFieldsAreIgnored() async throws {
        let (alice, _) = try await server.client.newUser("extra")
        let (_, bob) = try await server.client.newUser("bob")
        let answer = try await alice.send(
            "POST", "/v1/conversations/user:\(bob.username)/messages", raw: #"{"text": "hi", "colour": "red"}"#)
        expectStatus(answer, 201)
    }

    @Test(arguments: [1 << 20 + 1, 2 << 20 + 1])
    func aBodyOverTheLimitToAJSONEndpointIsPayloadTooLarge(size: Int) async throws {
        let (alice, _) = try await server.client.newUser("big")
        let (_, bob) = try await server.client.newUser("bob")
        let prefix = Array(#"{"text": ""#.utf8)
        let suffix = Array(#""}"#.utf8)
        let body = prefix + Array(repeating: UInt8(ascii: "x"), count: size - prefix.count - suffix.count) + suffix
        let answer = try await alice.send("POST", "/v1/conversations/user:\(bob.username)/messages", body: Data(body))
        expectError(answer, .payloadTooLarge)
        #expect(try await alice.history("user:\(bob.username)").messages.isEmpty)
    }

    struct WrongMethod: Sendable, CustomTestStringConvertible {
        var method: String
        var path: String
        var allow: String
        var testDescription: String { "\(method) \(path)" }
    }

    @Test(arguments: [
        WrongMethod(method: "DELETE", path: "/v1/me", allow: "GET, PATCH"),
        WrongMethod(method: "GET", path: "/v1/register", allow: "POST"),
        WrongMethod(method: "PUT", path: "/v1/events", allow: "GET"),
        WrongMethod(method: "POST", path: "/healthz", allow: "GET"),
        WrongMethod(method: "PATCH", path: "/v1/conversations/1/messages", allow: "GET, POST"),
    ])
    func aWrongMethodIs405WithAllow(_ wrong: WrongMethod) async throws {
        let (alice, _) = try await server.client.newUser("method")
        let answer = try await alice.send(wrong.method, wrong.path)
        expectError(answer, .methodNotAllowed)
        #expect(answer.header("Allow") == wrong.allow)
    }
}
