import Foundation
import HTTPServer
import IMClient
import IMProtocol
import IMServer
import Logging
import SwitchboardCrypto

/// A real server on 127.0.0.1 and a free port, with a fresh data folder, for tests.
///
/// Password hashing is made cheap and rate limits are off unless a test turns them on;
/// everything else is the production code path.
public final class TestServer: Sendable {
    public let app: IMServerApp
    public let directory: String
    public let baseURL: String
    public let logs: MemoryLogSink

    /// The configuration tests start from.
    public static func configuration(directory: String) -> ServerConfiguration {
        var config = ServerConfiguration()
        config.http.host = "127.0.0.1"
        config.http.port = 0
        config.http.shutdownGrace = 5
        config.dataDirectory = directory
        config.synchronous = .normal
        config.passwordHasher = PasswordHasher(memoryKiB: 64, iterations: 1, parallelism: 1)
        config.rateLimits.enabled = false
        return config
    }

    /// Starts a server; `configure` adjusts the test configuration first.
    public static func start(
        directory: String? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let folder = directory ?? TestServer.temporaryDirectory()
        var config = configuration(directory: folder)
        configure(&config)
        let logs = MemoryLogSink()
        let app = try IMServerApp(
            configuration: config, logger: Logger(label: "test-server", level: .debug, sink: logs))
        try await app.start()
        return TestServer(app: app, directory: folder, logs: logs)
    }

    private init(app: IMServerApp, directory: String, logs: MemoryLogSink) {
        self.app = app
        self.directory = directory
        self.logs = logs
        self.baseURL = "http://127.0.0.1:\(app.port)"
    }

    /// Stops gracefully (answers parked polls, drains requests, closes the database).
    public func stop() async { await app.shutdown() }

    /// Stops this server and starts another on the same data folder (a new port).
    public func restart(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        await stop()
        return try await TestServer.start(directory: directory, configure)
    }

    /// A fresh folder under the system's temporary directory.
    public static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-test-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Removes the data folder (call after `stop`).
    public func removeData() { try? FileManager.default.removeItem(atPath: directory) }
}

/// A raw API client for server tests: any method, path, headers and body; answers are
/// returned whatever their status.
public struct TestClient: Sendable {
    public let baseURL: String
    public let transport: any HTTPTransport
    public var token: String?

    /// One transport shared by all tests in the process (one curl thread).
    public static let sharedTransport = CurlTransport()

    public init(server: TestServer, token: String? = nil, transport: any HTTPTransport = TestClient.sharedTransport) {
        self.baseURL = server.baseURL
        self.transport = transport
        self.token = token
    }

    /// An answer: status, headers and body, with JSON helpers.
    public struct Answer: Sendable {
        public var status: Int
        public var response: TransportResponse

        public var body: Data { response.body }
        public var text: String { String(decoding: response.body, as: UTF8.self) }
        public func header(_ name: String) -> String? { response.header(name) }

        /// The body decoded as `T`; throws with the body text when it is not.
        public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            do {
                return try WireJSON.decoder().decode(T.self, from: response.body)
            } catch {
                throw TestFailure("status \(status), cannot decode \(T.self) from: \(text) (\(error))")
            }
        }

        /// The error envelope's error.
        public var error: APIError? { try? WireJSON.decoder().decode(ErrorEnvelope.self, from: response.body).error }
    }

    public func send(
        _ method: String, _ path: String, body: Data? = nil, headers: [(name: String, value: String)] = [],
        timeout: Duration = .seconds(60)
    ) async throws -> Answer {
        var all = headers
        if let token, !all.contains(where: { $0.name.lowercased() == "authorization" }) {
            all.append(("Authorization", "Bearer \(token)"))
        }
        if body != nil, !all.contains(where: { $0.name.lowercased() == "content-type" }) {
            all.append(("Content-Type", "application/json"))
        }
        let response = try await transport.send(
            TransportRequest(method: method, url: baseURL + path, headers: all, body: body, timeout: timeout))
        return Answer(status: response.status, response: response)
    }

    /// Sends `value` as JSON.
    public func send<T: Encodable>(_ method: String, _ path: String, json value: T) async throws -> Answer {
        try await send(method, path, body: try WireJSON.encoder().encode(value))
    }

    public func get(_ path: String) async throws -> Answer { try await send("GET", path) }

    /// Registers an account and returns a client logged in as it.
    public func register(_ username: String, password: String = "correct horse battery", bot: Bool = false)
        async throws -> (client: TestClient, user: User)
    {
        let answer = try await send(
            "POST", "/v1/register", json: RegisterRequest(username: username, password: password, bot: bot))
        guard answer.status == 201 else { throw TestFailure("register \(username): \(answer.status) \(answer.text)") }
        let auth = try answer.decode(AuthResponse.self)
        var client = self
        client.token = auth.token
        return (client, auth.user)
    }
}

/// A failed expectation inside test support, with a message that explains it.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension TestServer {
    /// A client without a token.
    public var client: TestClient { TestClient(server: self) }

    /// Waits until exactly `count` polls are parked on this server (read from
    /// `/metrics`); the guard only stops a test that would otherwise hang.
    public func awaitParkedPolls(_ count: Int, guardSeconds: Double = 30) async throws {
        let deadline = Date().addingTimeInterval(guardSeconds)
        while Date() < deadline {
            let text = try await client.get("/metrics").text
            let line = text.split(separator: "\n").first { $0.hasPrefix("switchboard_parked_polls ") }
            if let value = line?.split(separator: " ").last.flatMap({ Int($0) }), value == count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("never exactly \(count) parked polls")
    }
}

/// Runs `body` against a server of its own, then stops it and removes its data, however
/// `body` ends.
public func withServer<T>(
    _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(configure)
    do {
        let result = try await body(server)
        await server.stop()
        server.removeData()
        return result
    } catch {
        await server.stop()
        server.removeData()
        throw error
    }
}
