import Foundation
import HTTPServer
import IMProtocol
import Lifecycle
import TestSupport
import Testing

@testable import IMServer

/// Password guessing against the login throttle (issue 8, items 3, 10 and 17). Clients
/// at other addresses are played through a trusted proxy on 127.0.0.1 (`X-Forwarded-For`).
@Suite struct LoginThrottleTests {
    static func behindProxy(_ config: inout ServerConfiguration) {
        config.http.trustedProxies = [IPAddressRange("127.0.0.1")!]
    }

    static func login(
        _ server: TestServer, _ username: String, _ password: String, from address: String? = nil
    ) async throws -> TestClient.Answer {
        let headers = address.map { [(name: "X-Forwarded-For", value: $0)] } ?? []
        let body = try WireJSON.encoder().encode(LoginRequest(username: username, password: password))
        return try await server.client.send("POST", "/v1/login", body: body, headers: headers)
    }

    /// Item 3: guesses sent all at once are counted before their hash is computed, so
    /// fifty of them run no more password checks than five sent one after another.
    @Test func fiftyConcurrentWrongGuessesRunAtMostTheAllowedChecks() async throws {
        try await withServer({ config in
            config.loginLimits.failuresPerUser = 5
            config.loginLimits.inFlightPerAddress = 1_000
        }) { server in
            _ = try await server.client.register("alice")
            let before = try await server.metric("switchboard_password_checks_total") ?? 0
            let answers = try await withThrowingTaskGroup(of: TestClient.Answer.self) { group in
                for index in 0..<50 {
                    group.addTask { try await Self.login(server, "alice", "guess number \(index)") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let checks = (try await server.metric("switchboard_password_checks_total") ?? 0) - before
            #expect(checks <= 5, "\(checks) password checks for 50 parallel guesses")
            #expect(answers.filter { $0.status == 401 }.count == checks)
            let refused = answers.filter { $0.status == 429 }
            #expect(refused.count == 50 - checks)
            #expect(refused.allSatisfy { $0.error?.code == .rateLimited && $0.header("Retry-After") != nil })
            // One at a time, the guesses left (of five) are checked; then the address waits,
            // even with the right password.
            for _ in checks..<5 {
                expectError(try await Self.login(server, "alice", "one more guess"), .unauthorized)
            }
            expectError(try await Self.login(server, "alice", "correct horse battery"), .rateLimited)
            #expect(try await server.metric("switchboard_password_checks_total") == before + 5)
        }
    }

    /// Item 3: at most `inFlightPerAccount` checks of one account run at once.
    @Test func checksOfOneAccountInFlightAreCapped() async throws {
        let throttle = LoginThrottle(limits: LoginLimits(inFlightPerAccount: 2, inFlightPerAddress: 100), time: ManualTime())
        let first = try await throttle.begin(username: "alice", address: "192.0.2.1")
        let second = try await throttle.begin(username: "alice", address: "192.0.2.2")
        let error = await #expect(throws: APIError.self) { try await throttle.begin(username: "alice", address: "192.0.2.3") }
        #expect(error?.code == .rateLimited && error?.retryAfter == 1)
        try await throttle.finish(first, succeeded: false)
        _ = try await throttle.begin(username: "alice", address: "192.0.2.3")
        try await throttle.finish(second, succeeded: true)
    }

    /// Item 3: the hashing queue is bounded: past it a check answers 503 at once.
    @Test func aFullHashingQueueRefusesInsteadOfQueueing() async throws {
        let pool = HashingPool(hasher: TestServer.configuration(directory: "").passwordHasher, width: 1, queueLimit: 1)
        let release = Latch()
        let running = Task { try await pool.run(for: "192.0.2.1") { while !release.isOpen { usleep(1_000) } } }
        try await eventually("the blocking job holds the queue") { pool.queued == 1 }
        let error = await #expect(throws: APIError.self) { _ = try await pool.verify("pw", against: "$argon2id$x", for: "192.0.2.2") }
        #expect(error?.code == .unavailable && error?.retryAfter == 1)
        #expect(pool.refused.load(ordering: .relaxed) == 1)
        release.open()
        try await running.value
        #expect(try await pool.verify("pw", against: "$argon2id$x", for: "192.0.2.2") == false)
    }

    /// Item 10: guesses from one address lock that address out of the account, not the
    /// owner logging in from elsewhere.
    @Test func guessesFromOneAddressDoNotLockTheOwnerOutElsewhere() async throws {
        try await withServer(Self.behindProxy) { server in
            _ = try await server.client.register("alice")
            for _ in 0..<5 {
                expectError(try await Self.login(server, "alice", "wrong guess", from: "203.0.113.5"), .unauthorized)
            }
            expectError(try await Self.login(server, "alice", "correct horse battery", from: "203.0.113.5"), .rateLimited)
            expectStatus(try await Self.login(server, "alice", "correct horse battery", from: "198.51.100.7"), 200)
        }
    }

    /// Item 10: guesses spread over many addresses stop at the account's ceiling, except
    /// from an address the owner logged in from lately.
    @Test func guessesFromManyAddressesStopAtTheAccountsCeilingButNotForItsOwner() async throws {
        try await withServer({ config in
            Self.behindProxy(&config)
            config.loginLimits.failuresPerAccount = 10
        }) { server in
            _ = try await server.client.register("alice")
            expectStatus(try await Self.login(server, "alice", "correct horse battery", from: "198.51.100.7"), 200)
            for index in 1...10 {
                expectError(try await Self.login(server, "alice", "wrong guess", from: "203.0.113.\(index)"), .unauthorized)
            }
            let refused = try await Self.login(server, "alice", "correct horse battery", from: "203.0.113.99")
            expectError(refused, .rateLimited)
            #expect(refused.error?.message.contains("for this account") == true)
            expectStatus(try await Self.login(server, "alice", "correct horse battery", from: "198.51.100.7"), 200)
        }
    }

    /// Without a trusted proxy, `X-Forwarded-For` is only a header: rotating it does not
    /// get an attacker more guesses.
    @Test func aForgedForwardedForGainsNothing() async throws {
        try await withServer { server in
            _ = try await server.client.register("alice")
            for index in 1...5 {
                expectError(try await Self.login(server, "alice", "wrong guess", from: "203.0.113.\(index)"), .unauthorized)
            }
            expectError(try await Self.login(server, "alice", "correct horse battery", from: "198.51.100.7"), .rateLimited)
        }
    }

    /// Item 17: a name no account can have is refused before it keys a throttle record
    /// or costs a password check.
    @Test func anImpossibleUsernameIsRefusedBeforeAnyCheck() async throws {
        try await withServer { server in
            let before = try await server.metric("switchboard_password_checks_total") ?? 0
            let long = try await Self.login(server, String(repeating: "a", count: 10_000), "whatever it is")
            expectError(long, .invalidRequest, field: "username")
            // Larger than an anonymous body may be: refused before it is read.
            let huge = try await Self.login(server, String(repeating: "a", count: 100_000), "whatever it is")
            expectError(huge, .payloadTooLarge)
            let odd = try await Self.login(server, "al ice\u{202E}", "whatever it is")
            expectError(odd, .invalidRequest, field: "username")
            #expect(try await server.metric("switchboard_password_checks_total") == before)
        }
    }
}
