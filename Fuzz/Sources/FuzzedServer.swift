import Foundation
import IMProtocol
import IMServer
import Logging
import SwitchboardCrypto

/// A real server in this process for the HTTP target: a fresh data folder, cheap password
/// hashing, no request budgets (the fuzzer is one client sending thousands of requests a
/// second), and four callers: nobody, a person, an administrator and a bot, each with a
/// group, a room and a direct conversation to act on.
final class FuzzedServer: Sendable {
    /// Who a fuzzed request is sent as.
    enum Caller: Int, CaseIterable, Sendable {
        case anonymous, person, admin, bot

        var username: String? {
            switch self {
            case .anonymous: nil
            case .person: "fuzzer"
            case .admin: "admin"
            case .bot: "fuzzbot"
            }
        }
    }

    static let password = "fuzzing password"

    let app: IMServerApp
    /// `app.run()`: the server's maintenance (parked polls expire) until `stop()`.
    private let running: Task<Void, any Error>
    let directory: String
    let exchange: LoopbackExchange
    /// The token of each caller but `anonymous`.
    let tokens: [Caller: String]
    /// The person's current feed cursor, put where an input says `@CURSOR@`.
    let cursor: String

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-fuzz-\(UUID().uuidString)").path
        var config = ServerConfiguration()
        config.http.host = "127.0.0.1"
        config.http.port = 0
        config.http.shutdownGrace = 0.5
        config.http.errorLog = { _ in }
        config.dataDirectory = directory
        config.synchronous = .normal
        config.passwordHasher = PasswordHasher(memoryKiB: 8, iterations: 1, parallelism: 1)
        config.rateLimits.enabled = false
        let configuration = config
        let started = blocking { () async -> Result<(IMServerApp, String), any Error> in
            do {
                let app = try await IMServerApp(configuration: configuration, logger: Logger(label: "fuzzed-server", level: .error))
                try await app.start()
                return .success((app, try await app.localAdministratorToken()))
            } catch {
                return .failure(error)
            }
        }
        guard case .success(let (app, local)) = started else {
            throw StartFailure(description: "the server did not start: \(started)")
        }
        self.app = app
        running = Task { try await app.run() }
        exchange = LoopbackExchange(port: UInt16(app.port))
        // The person registers as anyone can; the administrator and the bot are made with
        // the process-local administration credential, as `switchboard up` makes its bots.
        var tokens: [Caller: String] = [:]
        for caller in Caller.allCases {
            guard let name = caller.username else { continue }
            let account = #"{"username":"\#(name)","password":"\#(Self.password)""#
            let answer: Data
            if caller == .person {
                answer = try Self.call(exchange, "POST", "/v1/register", body: account + "}", token: nil)
            } else {
                let role = caller == .admin ? #""admin":true"# : #""bot":true"#
                _ = try Self.call(exchange, "POST", "/v1/admin/users", body: account + ",\(role)}", token: local)
                answer = try Self.call(exchange, "POST", "/v1/login", body: account + "}", token: nil)
            }
            guard let auth = try? WireJSON.decoder().decode(AuthResponse.self, from: answer) else {
                throw StartFailure(description: "logging in \(name) answered \(String(decoding: answer, as: UTF8.self))")
            }
            tokens[caller] = auth.token
        }
        self.tokens = tokens
        // Something for every route to find: an open group, a room, messages in each kind
        // of conversation.
        let person = tokens[.person], admin = tokens[.admin]
        _ = try Self.call(exchange, "POST", "/v1/groups", body: #"{"name":"fuzz","title":"Fuzz","join":"open"}"#, token: person)
        _ = try Self.call(exchange, "POST", "/v1/groups/fuzz/join", body: nil, token: admin)
        _ = try Self.call(exchange, "POST", "/v1/rooms", body: #"{"name":"lobby"}"#, token: person)
        for address in ["group:fuzz", "user:admin", "room:lobby"] {
            _ = try Self.call(exchange, "POST", "/v1/conversations/\(address)/messages",
                              body: #"{"text":"hello","client_msg_id":"seed-\#(address)"}"#, token: person)
        }
        let events = try Self.call(exchange, "GET", "/v1/events", body: nil, token: person)
        guard let batch = try? WireJSON.decoder().decode(EventBatch.self, from: events) else {
            throw StartFailure(description: "the first poll answered \(String(decoding: events, as: UTF8.self))")
        }
        cursor = batch.cursor
    }

    /// Whether every caller's login still works (a fuzzed request may have logged one out
    /// or changed a password).
    var loginsWork: Bool {
        tokens.values.allSatisfy { token in
            let answer = exchange.exchange(Self.request("GET", "/v1/me", body: nil, token: token), patience: 5)
            return HTTPAnswer(answer.bytes)?.status == 200
        }
    }

    func stop() {
        let running = self.running
        running.cancel()
        blocking { _ = await running.result }
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func request(_ method: String, _ path: String, body: String?, token: String?) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        let bytes = Array((body ?? "").utf8)
        head += "Content-Length: \(bytes.count)\r\n\r\n"
        return Array(head.utf8) + bytes
    }

    /// A set-up request that must succeed; its body.
    private static func call(_ exchange: LoopbackExchange, _ method: String, _ path: String, body: String?,
                             token: String?) throws -> Data {
        let outcome = exchange.exchange(request(method, path, body: body, token: token), patience: 10)
        guard let answer = HTTPAnswer(outcome.bytes), (200..<300).contains(answer.status) else {
            throw StartFailure(description: "\(method) \(path) answered \(String(decoding: outcome.bytes, as: UTF8.self))")
        }
        return Data(answer.body)
    }
}
