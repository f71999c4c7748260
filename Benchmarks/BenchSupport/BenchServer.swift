import Foundation
import IMClient
import IMProtocol

/// A release `switchboard serve` on a free loopback port with rate limits off and cheap
/// password hashing (for setting up thousands of accounts), plus helpers to call it.
public final class BenchServer: Sendable {
    public let child: ChildProcess
    public let port: Int
    public let transport: CurlTransport

    public init(binary: String, durability: String = "full", transport: CurlTransport) async throws {
        self.transport = transport
        port = ChildProcess.freePort()
        let folder = NSTemporaryDirectory() + "switchboard-bench-\(UUID().uuidString)"
        // Bot accounts are made by an administrator, who is made on the data folder.
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let admin = Process()
        admin.executableURL = URL(fileURLWithPath: binary)
        admin.arguments = ["user", "add", Self.administrator, "--admin", "--data", folder + "/data"]
        admin.environment = ["SWITCHBOARD_NEW_PASSWORD": Self.password]
        admin.standardOutput = FileHandle.nullDevice
        try admin.run()
        admin.waitUntilExit()
        guard admin.terminationStatus == 0 else { throw BenchError("cannot make the benchmark's administrator") }
        child = try ChildProcess(
            binary: binary, arguments: ["serve"],
            config: """
                log_level: warning
                server:
                  listen: 127.0.0.1:\(port)
                  data: \(folder)/data
                  durability: \(durability)
                  max_connections: 30000
                  max_connections_per_address: 30000
                  password_hashing: { memory_kib: 256, iterations: 1, max_queued: 100000 }
                  login_limits: { in_flight_per_address: 100000, checks_per_address_per_minute: 1000000, checks_per_account_per_minute: 1000000 }
                  rate_limits: { enabled: false }
                """, folder: folder)
        for _ in 0..<200 {
            if let answer = try? await call("GET", "/healthz"), answer.status == 200 { return }
            if let exited = child.exited { throw BenchError("the server on \(url) \(exited)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("the server did not answer /healthz on \(url)")
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    public func stop() {
        child.stop()
        try? FileManager.default.removeItem(atPath: child.folder)
    }

    public func call(
        _ method: String, _ path: String, token: String? = nil, body: Data? = nil, timeout: Duration = .seconds(60)
    ) async throws -> TransportResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await transport.send(
            TransportRequest(method: method, url: url + path, headers: headers, body: body, timeout: timeout))
    }

    public func decode<T: Decodable>(_ type: T.Type, _ response: TransportResponse) throws -> T {
        guard (200..<300).contains(response.status) else {
            throw BenchError("HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return try WireJSON.decoder().decode(T.self, from: response.body)
    }

    static let administrator = "benchadmin"
    static let password = "bench-password"

    /// Registers `prefix0…prefix(count-1)`, 64 at a time; returns their tokens in order.
    public func register(_ prefix: String, count: Int) async throws -> [String] {
        try await Concurrently.map(Array(0..<count), width: 64) { index in
            let body = try WireJSON.encoder().encode(
                RegisterRequest(username: "\(prefix)\(index)", password: Self.password))
            return try self.decode(AuthResponse.self, try await self.call("POST", "/v1/register", body: body)).token
        }
    }

    /// Makes the bot accounts `prefix0…prefix(count-1)` (password `bench-password`) as the
    /// benchmark's administrator: public registration makes no bots.
    public func createBots(_ prefix: String, count: Int) async throws {
        let login = try WireJSON.encoder().encode(LoginRequest(username: Self.administrator, password: Self.password))
        let token = try decode(AuthResponse.self, try await call("POST", "/v1/login", body: login)).token
        _ = try await Concurrently.map(Array(0..<count), width: 64) { index in
            let body = try WireJSON.encoder().encode(
                AdminCreateUser(username: "\(prefix)\(index)", password: Self.password, bot: true))
            let answer = try await self.call("POST", "/v1/admin/users", token: token, body: body)
            // Made by an earlier scenario: the same account serves again.
            guard answer.status == 201 || answer.status == 409 else {
                throw BenchError("cannot make bot \(prefix)\(index): HTTP \(answer.status)")
            }
            return answer.status
        }
    }

    /// The number of polls parked on the server now.
    public func parkedPolls() async throws -> Int {
        let text = String(decoding: try await call("GET", "/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("switchboard_parked_polls ") }
        return Int(line?.split(separator: " ").last ?? "0") ?? 0
    }
}

/// Bounded concurrency over a list.
public enum Concurrently {
    /// `body` applied to every item, at most `width` at a time, results in order.
    public static func map<Item: Sendable, T: Sendable>(
        _ items: [Item], width: Int = 128, _ body: @escaping @Sendable (Item) async throws -> T
    ) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var results = [T?](repeating: nil, count: items.count)
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask { (index, try await body(items[index])) }
            }
            for _ in 0..<min(width, items.count) { add() }
            while let (index, value) = try await group.next() {
                results[index] = value
                if next < items.count { add() }
            }
            return results.compactMap { $0 }
        }
    }

    /// Polls `condition` until it holds (for benchmarks; tests await events instead).
    public static func waitUntil(seconds: Double = 120, _ condition: @escaping @Sendable () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("timed out waiting for a condition")
    }
}
