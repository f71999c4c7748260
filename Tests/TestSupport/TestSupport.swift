import Foundation
import HTTPServer
import IMClient
import IMProtocol
import IMServer
import Lifecycle
import Logging
import SwitchboardCrypto
import Synchronization

/// A real server on 127.0.0.1 and a free port, with a fresh data folder, for tests.
///
/// Password hashing is made cheap and rate limits are off unless a test turns them on;
/// everything else is the production code path, run as a service (`IMServerApp.run()`)
/// until `stop()`.
public final class TestServer: Sendable {
    public let app: IMServerApp
    public let directory: String
    public let baseURL: String
    public let logs: MemoryLogSink
    /// The server's clock: a `ManualTime` when the test passed one.
    public let time: any TimeSource
    /// `app.run()`, cancelled by `stop()`.
    private let running: Task<Void, any Error>

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
        // Suites register many accounts at once: the hashing queue's bound is tested apart.
        config.hashQueueLimit = 100_000
        config.loginLimits.inFlightPerAddress = 1_000
        // Every test client is 127.0.0.1 and logs in as often as it needs: the budgets of
        // password checks are tested apart.
        config.loginLimits.checksPerAddress = .init(rate: 10_000, burst: 100_000)
        config.loginLimits.checksPerAccount = .init(rate: 10_000, burst: 100_000)
        // Every test client is 127.0.0.1; the per-address limit is tested apart.
        config.http.connectionsPerAddress = 100_000
        // A loaded machine must not turn a test's wait for a database session into a 503,
        // nor a wait for another test's login from 127.0.0.1 (the same address row) into a 429.
        config.storeWait = .seconds(60)
        config.loginLimits.admissionWait = .seconds(60)
        return config
    }

    /// Starts a server; `configure` adjusts the test configuration first. `time` is the
    /// server's only clock: pass a `ManualTime` to move it from the test.
    public static func start(
        directory: String? = nil, time: any TimeSource = SystemTime(),
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let folder = directory ?? TestServer.temporaryDirectory()
        var config = configuration(directory: folder)
        configure(&config)
        let logs = MemoryLogSink()
        let app = try await IMServerApp(
            configuration: config, logger: Logger(label: "test-server", level: .debug, sink: logs), time: time)
        try await app.start()
        return TestServer(app: app, directory: folder, logs: logs, time: time)
    }

    private init(app: IMServerApp, directory: String, logs: MemoryLogSink, time: any TimeSource) {
        self.app = app
        self.directory = directory
        self.logs = logs
        self.time = time
        self.baseURL = "http://127.0.0.1:\(app.port)"
        self.running = Task { try await app.run() }
    }

    /// Stops gracefully (answers parked polls, drains requests, closes the database) and
    /// returns once the server has stopped.
    public func stop() async {
        running.cancel()
        _ = await running.result
    }

    /// Stops this server and starts another on the same data folder (a new port) and clock.
    public func restart(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        await stop()
        return try await TestServer.start(directory: directory, time: time, configure)
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
        self.init(baseURL: server.baseURL, token: token, transport: transport)
    }

    /// A client of whatever answers at `baseURL`: a server a test started as a process, or a proxy in front of servers.
    public init(baseURL: String, token: String? = nil, transport: any HTTPTransport = TestClient.sharedTransport) {
        self.baseURL = baseURL
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

    /// A copy of this client that sends `token` (or none).
    public func with(token: String?) -> TestClient {
        var copy = self
        copy.token = token
        return copy
    }

    /// Logs in and returns a client with the new token.
    public func login(_ username: String, password: String = "correct horse battery", device: String? = nil)
        async throws -> TestClient
    {
        let answer = try await send(
            "POST", "/v1/login", json: LoginRequest(username: username, password: password, device: device))
        guard answer.status == 200 else { throw TestFailure("login \(username): \(answer.status) \(answer.text)") }
        return with(token: try answer.decode(AuthResponse.self).token)
    }

    /// Registers a person's account and returns a client logged in as it (bots are made
    /// by administrators: `TestServer.createAccount(_:bot:)`).
    public func register(_ username: String, password: String = "correct horse battery")
        async throws -> (client: TestClient, user: User)
    {
        let answer = try await send(
            "POST", "/v1/register", json: RegisterRequest(username: username, password: password))
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

    /// A client with this server's process-local administration credential (it works for
    /// `/v1/admin` only).
    public func localAdministrator() async throws -> TestClient {
        client.with(token: try await app.localAdministratorToken())
    }

    /// Makes an account through the admin API (nobody may register a bot or an
    /// administrator) and returns a client logged in as it.
    @discardableResult
    public func createAccount(
        _ username: String, password: String = "correct horse battery", bot: Bool = false, admin: Bool = false
    ) async throws -> (client: TestClient, user: User) {
        let created = try await localAdministrator().send(
            "POST", "/v1/admin/users", json: AdminCreateUser(username: username, password: password, bot: bot, admin: admin))
        guard created.status == 201 else {
            throw TestFailure("create \(username): \(created.status) \(created.text)")
        }
        let logged = try await client.login(username, password: password)
        return (logged, try created.decode(AdminUser.self).user)
    }

    /// Polls parked on this server now.
    public var parkedPolls: Int { app.parkedPolls }

    /// Waits until exactly `count` polls are parked on this server.
    public func awaitParkedPolls(_ count: Int, hangGuard: Duration = .seconds(30)) async throws {
        try await eventually("exactly \(count) parked polls", hangGuard: hangGuard) { parkedPolls == count }
    }
}

/// Runs `body` against a server of its own, then stops it and removes its data, however
/// `body` ends. With `store: .postgres` its data is a fresh database of the test cluster.
public func withServer<T>(
    store: TestStore = .sqlite, time: any TimeSource = SystemTime(),
    _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T
) async throws -> T {
    try await withNodes(1, store: store, time: time, configure) { servers in try await body(servers[0]) }
}

/// A server that a test restarts on the same data folder; `finish` stops the last one
/// and removes the data.
public final class RestartableServer: Sendable {
    private let current: Mutex<TestServer>

    public init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws {
        current = Mutex(try await TestServer.start(configure))
    }

    public var server: TestServer { current.withLock { $0 } }

    /// Stops the server and starts another on the same data folder (a new port).
    @discardableResult
    public func restart(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        let next = try await server.restart(configure)
        current.withLock { $0 = next }
        return next
    }

    public func finish() async {
        await server.stop()
        server.removeData()
    }
}

/// Runs `body` with a server it may restart, then stops it and removes its data.
public func withRestartableServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (RestartableServer) async throws -> Void
) async throws {
    let handle = try await RestartableServer(configure)
    do {
        try await body(handle)
    } catch {
        await handle.finish()
        throw error
    }
    await handle.finish()
}
