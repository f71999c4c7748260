import Foundation
import IMClient
import IMProtocol
import IMServer
import TestSupport

/// A bot account that speaks the Telegram Bot API on a test server, and raw calls of its
/// methods, answers decoded as JSON objects (as a framework sees them).
struct TelegramBot: Sendable {
    let server: TestServer
    let user: User
    let token: String

    /// Creates a bot account through the admin API; its token comes with the answer.
    static func create(_ name: String, on server: TestServer) async throws -> TelegramBot {
        let answer = try await server.localAdministrator().send(
            "POST", "/v1/admin/users",
            json: AdminCreateUser(username: name, password: "correct horse battery", bot: true))
        guard answer.status == 201 else { throw TestFailure("create \(name): \(answer.status) \(answer.text)") }
        let created = try answer.decode(AdminUser.self)
        guard let token = created.telegramToken else { throw TestFailure("no telegram_token in \(answer.text)") }
        return TelegramBot(server: server, user: created.user, token: token)
    }

    var id: Int64 { user.id.rawValue }

    /// One call's answer: the HTTP status and the JSON object.
    struct Answer: @unchecked Sendable {  // a JSON object read once, by the test that made it
        var status: Int
        var object: [String: Any]
        var text: String

        var ok: Bool { object["ok"] as? Bool == true }
        var result: Any? { object["result"] }
        var resultObject: [String: Any] { object["result"] as? [String: Any] ?? [:] }
        var resultList: [[String: Any]] { object["result"] as? [[String: Any]] ?? [] }
        var description: String { object["description"] as? String ?? "" }
        var errorCode: Int { object["error_code"] as? Int ?? 0 }
    }

    /// Calls `method` with `parameters` as a JSON body.
    func call(_ method: String, _ parameters: [String: Any] = [:], timeout: Duration = .seconds(60)) async throws -> Answer {
        let body = try JSONSerialization.data(withJSONObject: parameters)
        return try await raw(
            "POST", "/bot\(token)/\(method)", body: body, headers: [("Content-Type", "application/json")], timeout: timeout)
    }

    /// Sends a request as it is, to any path.
    func raw(
        _ method: String, _ path: String, body: Data? = nil, headers: [(name: String, value: String)] = [],
        timeout: Duration = .seconds(60)
    ) async throws -> Answer {
        let response = try await TestClient.sharedTransport.send(
            TransportRequest(method: method, url: server.baseURL + path, headers: headers, body: body, timeout: timeout))
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return Answer(status: response.status, object: object, text: String(decoding: response.body, as: UTF8.self))
    }

    /// Calls `method` and fails the test unless it answers `ok`.
    @discardableResult
    func ok(_ method: String, _ parameters: [String: Any] = [:]) async throws -> Answer {
        let answer = try await call(method, parameters)
        guard answer.status == 200, answer.ok else { throw TestFailure("\(method): \(answer.status) \(answer.text)") }
        return answer
    }

    /// The chat id of a group or room.
    static func chatID(of conversation: ConversationID) -> Int64 { -(1_000_000_000_000 + conversation.rawValue) }
}

/// A person on the other side, using the Switchboard API: sends, and reads their feed
/// as it grows (a long-poll, never a busy loop).
final class Person: @unchecked Sendable {  // used by one test task at a time
    let client: TestClient
    let user: User
    private var cursor: String
    /// Every event read so far, oldest first.
    private(set) var events: [Event] = []

    init(_ name: String, on server: TestServer) async throws {
        let (client, user) = try await server.createAccount(name)
        self.client = client
        self.user = user
        cursor = try await client.get("/v1/events").decode(EventBatch.self).cursor
    }

    var username: String { user.username }

    @discardableResult
    func send(_ text: String, to address: String, replyTo: MessageID? = nil) async throws -> Message {
        let answer = try await client.send(
            "POST", "/v1/conversations/\(address)/messages", json: SendMessageRequest(text: text, replyTo: replyTo))
        guard answer.status == 201 else { throw TestFailure("send to \(address): \(answer.status) \(answer.text)") }
        return try answer.decode(Message.self)
    }

    /// Messages of a conversation seen in the feed (sent, edited or deleted since), as
    /// they are now, oldest first.
    func messages(in address: String) -> [Message] {
        var byID: [MessageID: Message] = [:]
        var order: [MessageID] = []
        for event in events where event.conversation?.address.description == address {
            guard let message = event.message else { continue }
            if byID[message.id] == nil { order.append(message.id) }
            byID[message.id] = message
        }
        return order.compactMap { byID[$0] }
    }

    /// Reads the feed until `condition` holds; `HangError` after `hangGuard`.
    func waitFor(_ what: String, hangGuard: Duration = .seconds(180), _ condition: (Person) -> Bool) async throws {
        let giveUp = ContinuousClock.now + hangGuard
        while !condition(self) {
            guard ContinuousClock.now < giveUp else {
                let seen = events.compactMap { $0.message.map { "\($0.sender): \($0.text)" } }.suffix(20)
                throw HangError(what: "still waiting for: \(what); last messages seen: \(seen)")
            }
            let batch = try await client.get("/v1/events?cursor=\(cursor)&timeout=5").decode(EventBatch.self)
            events += batch.events
            cursor = batch.cursor
        }
    }

    /// Waits for a message from `sender` in `address` whose text passes `test`.
    @discardableResult
    func waitForMessage(
        from sender: String, in address: String, hangGuard: Duration = .seconds(180), where test: @escaping (String) -> Bool
    ) async throws -> Message {
        var found: Message?
        try await waitFor("a message from \(sender) in \(address)", hangGuard: hangGuard) { person in
            found = person.messages(in: address).last { $0.sender == sender && test($0.text) }
            return found != nil
        }
        return found!
    }
}

/// A bot of a framework, run as a process of the Makefile's venv against a test server.
struct FrameworkBot {
    /// The venv `make telegram-venv` (and so `make test`) makes.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let python = packageRoot + "/.venv-telegram/bin/python"
    static let scripts = packageRoot + "/Tests/TelegramTests/Bots"

    let process: SpawnedProcess
    let log: String

    /// Starts `script` (a file of `Tests/TelegramTests/Bots`) for `bot`.
    static func start(_ script: String, bot: TelegramBot, in directory: String) throws -> FrameworkBot {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestFailure("\(python) is missing: `make telegram-venv` (which `make test` runs) installs the frameworks")
        }
        let log = directory + "/\(script).log"
        let process = try SpawnedProcess(
            python, [scripts + "/" + script],
            environment: [
                "TELEGRAM_API": bot.server.baseURL, "BOT_TOKEN": bot.token, "PYTHONUNBUFFERED": "1",
                "PATH": "/usr/bin:/bin", "HOME": directory,
            ],
            output: .appended(toFile: log))
        return FrameworkBot(process: process, log: log)
    }

    /// What the bot logged, for a failing test.
    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func stop() async {
        _ = try? await process.stop(SIGTERM, hangGuard: .seconds(20))
    }
}
