import Foundation
import HTTPServer
import IMProtocol
import Lifecycle
import Synchronization
import SwitchboardCrypto
import TestSupport
import Testing

@testable import IMServer

/// Login floods, tried from outside: every password check, right or wrong, counts against
/// a per-address (IPv6: per /64) and a per-account budget, hashes are queued fairly per
/// client, and live logins per account are capped. Clients at other addresses come
/// through a trusted proxy on 127.0.0.1 (`X-Forwarded-For`).
@Suite struct LoginFloodTests {
    /// The production login limits and hashing queue (2 at once, 32 queued), a trusted
    /// proxy, and a password hash that takes a few milliseconds.
    static func production(_ config: inout ServerConfiguration) {
        config.http.trustedProxies = [IPAddressRange("127.0.0.1")!]
        config.loginLimits = LoginLimits()
        config.loginLimits.admissionWait = .seconds(60)
        config.concurrentHashes = 2
        config.hashQueueLimit = 32
        config.passwordHasher = PasswordHasher(memoryKiB: 2048, iterations: 1, parallelism: 1)
    }

    static func login(
        _ server: TestServer, _ username: String, from address: String, password: String = "correct horse battery",
        device: String? = nil
    ) async throws -> TestClient.Answer {
        let body = try WireJSON.encoder().encode(LoginRequest(username: username, password: password, device: device))
        return try await server.client.send(
            "POST", "/v1/login", body: body, headers: [(name: "X-Forwarded-For", value: address)])
    }

    /// The flood: each account logging in correctly, two at a time, account `i` from
    /// address `203.0.113.(i % 4 + 1)`, until `done` opens (at most `each` logins per
    /// task); the statuses answered.
    static func flood(_ server: TestServer, _ accounts: [String], until done: Latch, each: Int) async throws -> [Int] {
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for (index, name) in accounts.enumerated() {
                for _ in 0..<2 {
                    group.addTask {
                        var statuses: [Int] = []
                        while !done.isOpen, statuses.count < each {
                            statuses.append(try await login(server, name, from: "203.0.113.\(index % 4 + 1)").status)
                        }
                        return statuses
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    /// Accounts made by the administration credential: no login, so no budget is spent.
    static func makeAccounts(_ server: TestServer, _ names: [String]) async throws {
        let admin = try await server.localAdministrator()
        for name in names {
            let made = try await admin.send(
                "POST", "/v1/admin/users", json: AdminCreateUser(username: name, password: "correct horse battery"))
            expectStatus(made, 201)
        }
    }

    /// 16 accounts logging in correctly, two at a time each, from four addresses (the
    /// flood that kept the 32-place hashing queue full): the victim, from an address of
    /// its own, logs in every time. The flood's checks stop at its addresses' budgets (30
    /// each; the clock does not move, so none comes back).
    @Test(.timeLimit(.minutes(5)))
    func aFloodOfCorrectLoginsLeavesTheVictimLoggingIn() async throws {
        try await withServer(time: ManualTime(), Self.production) { server in
            let flooders = (0..<16).map { "flooder\($0)" }
            try await Self.makeAccounts(server, flooders + ["victim"])
            let victimDone = Latch()
            let flood = Task { try await Self.flood(server, flooders, until: victimDone, each: 60) }
            var victim: [Int] = []
            for _ in 0..<15 {
                victim.append(try await Self.login(server, "victim", from: "198.51.100.7").status)
            }
            victimDone.open()
            let floodStatuses = try await flood.value

            #expect(victim == Array(repeating: 200, count: 15), "\(victim)")
            #expect(Set(floodStatuses).isSubset(of: [200, 429, 503]), "\(Set(floodStatuses))")
            #expect(floodStatuses.filter { $0 == 200 }.count <= 4 * 30)
            #expect(floodStatuses.contains(429))
            let checks = try await server.metric("switchboard_password_checks_total") ?? 0
            #expect(checks <= 4 * 30 + 15, "\(checks) password checks")
        }
    }

    /// With the budgets out of the way, the same flood keeps the hashing queue full (four
    /// addresses with eight checks in flight each); the victim's hash still gets a place
    /// (one of a flooding address's is refused instead) and waits behind at most one of
    /// each other client's.
    @Test(.timeLimit(.minutes(5)))
    func aFullHashingQueueStillTakesANewClient() async throws {
        try await withServer({ config in
            Self.production(&config)
            config.loginLimits.checksPerAddress = .init(rate: 10_000, burst: 100_000)
            config.loginLimits.checksPerAccount = .init(rate: 10_000, burst: 100_000)
            config.passwordHasher = PasswordHasher(memoryKiB: 8192, iterations: 2, parallelism: 1)
        }) { server in
            let flooders = (0..<16).map { "flooder\($0)" }
            try await Self.makeAccounts(server, flooders + ["victim"])
            let victimDone = Latch()
            let flood = Task { try await Self.flood(server, flooders, until: victimDone, each: 2_000) }
            try await eventually("the flood fills the hashing queue") {
                (try await server.metric("switchboard_password_hashing_queued") ?? 0) >= 30
            }
            var victim: [Int] = []
            for _ in 0..<15 {
                victim.append(try await Self.login(server, "victim", from: "198.51.100.7").status)
            }
            victimDone.open()
            let floodStatuses = try await flood.value

            #expect(victim == Array(repeating: 200, count: 15), "\(victim)")
            #expect(Set(floodStatuses).isSubset(of: [200, 429, 503]), "\(Set(floodStatuses))")
        }
    }

    /// One worker held busy; a client with three hashes waiting fills a queue of four. A
    /// second client still gets in (the first client's newest is refused in its place),
    /// and runs before the first client's later ones.
    @Test func theHashingQueueTakesClientsInTurn() async throws {
        let pool = HashingPool(hasher: TestServer.configuration(directory: "").passwordHasher, width: 1, queueLimit: 4)
        let release = Latch()
        let order = Recorder()
        let blocker = Task { try await pool.run(for: "a") { while !release.isOpen { usleep(1_000) } } }
        try await eventually("the worker is busy") { pool.queued == 1 }
        var first: [Task<Void, any Error>] = []
        for index in 1...3 {
            first.append(Task { try await pool.run(for: "a") { order.append("a\(index)") } })
            try await eventually("a\(index) queued") { pool.queued == 1 + index }
        }
        let second = Task { try await pool.run(for: "b") { order.append("b1") } }
        try await eventually("b's hash took the place of a's newest") { pool.refused.load(ordering: .relaxed) == 1 }
        let pushedOut = await #expect(throws: APIError.self) { try await first[2].value }
        #expect(pushedOut?.code == .unavailable && pushedOut?.retryAfter == 1)

        release.open()
        try await blocker.value
        try await first[0].value
        try await first[1].value
        try await second.value
        #expect(order.items == ["a1", "b1", "a2"])
        #expect(pool.queued == 0)
    }

    /// The budget of checks from one address covers its whole /64 for IPv6: walking
    /// through the addresses of one network gains nothing.
    @Test func checksFromOneIPv6NetworkShareOneBudget() async throws {
        try await withServer(time: ManualTime(), { config in
            Self.production(&config)
            config.loginLimits.checksPerAddress = .init(rate: 1, burst: 3)
        }) { server in
            try await Self.makeAccounts(server, ["alice"])
            for host in 1...3 {
                expectStatus(try await Self.login(server, "alice", from: "2001:db8:1:2::\(host)"), 200)
            }
            let refused = try await Self.login(server, "alice", from: "2001:db8:1:2:ffff::9")
            expectError(refused, .rateLimited)
            #expect(refused.error?.message.contains("from this address") == true)
            #expect(refused.header("Retry-After") != nil)
            expectStatus(try await Self.login(server, "alice", from: "2001:db8:1:3::1"), 200)
            #expect(IPAddressRange.clientKey(of: "2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64")
            #expect(IPAddressRange.clientKey(of: "::ffff:192.0.2.7") == "192.0.2.7")
        }
    }

    /// Checks of one account from addresses it does not trust spend its budget, right
    /// password or wrong; its owner, from where it logged in lately, is not held back.
    @Test func checksOfOneAccountFromElsewhereStopAtItsBudget() async throws {
        try await withServer(time: ManualTime(), { config in
            Self.production(&config)
            config.loginLimits.checksPerAccount = .init(rate: 1, burst: 4)
        }) { server in
            try await Self.makeAccounts(server, ["alice"])
            expectStatus(try await Self.login(server, "alice", from: "198.51.100.7"), 200)
            for index in 1...3 {
                expectError(try await Self.login(server, "alice", from: "203.0.113.\(index)", password: "a guess"), .unauthorized)
            }
            let refused = try await Self.login(server, "alice", from: "203.0.113.50")
            expectError(refused, .rateLimited)
            #expect(refused.error?.message.contains("for this account") == true)
            for _ in 0..<5 {
                expectStatus(try await Self.login(server, "alice", from: "198.51.100.7"), 200)
            }
        }
    }

    /// Live logins per account are capped per kind of credential: the oldest end (its
    /// parked poll hears `kicked_out`, its next request gets 401 `too_many_logins`), and a
    /// bot's cap is its own.
    @Test func liveLoginsPerAccountAreCappedOldestFirst() async throws {
        try await withServer({ config in
            config.loginCaps.caps[.person] = 3
            config.loginCaps.caps[.bot] = 2
        }) { server in
            let (alice, _) = try await server.client.register("alice")
            let cursor = try await alice.get("/v1/events").decode(EventBatch.self).cursor
            async let parked = alice.send("GET", "/v1/events?cursor=\(cursor)&timeout=30")
            try await server.awaitParkedPolls(1)
            var later: [TestClient] = []
            for _ in 0..<3 { later.append(try await server.client.login("alice")) }

            let kicked = try await parked.decode(EventBatch.self)
            #expect(kicked.events.map(\.type) == [.kickedOut])
            expectError(try await alice.get("/v1/me"), .unauthorized, reason: "too_many_logins")
            for client in later { expectStatus(try await client.get("/v1/me"), 200) }
            let sessions = try await later[2].get("/v1/me/sessions").decode(SessionList.self)
            #expect(sessions.sessions.count == 3)

            let (helper, _) = try await server.createAccount("helper", bot: true)
            let second = try await server.client.login("helper")
            let third = try await server.client.login("helper")
            expectError(try await helper.get("/v1/me"), .unauthorized, reason: "too_many_logins")
            expectStatus(try await second.get("/v1/me"), 200)
            expectStatus(try await third.get("/v1/me"), 200)
            // The people's cap did not count the bot's logins, nor the other way round.
            for client in later { expectStatus(try await client.get("/v1/me"), 200) }
        }
    }

    /// A kind without a cap is exempt.
    @Test func aKindWithoutACapIsExempt() async throws {
        try await withServer({ config in config.loginCaps.caps[.bot] = nil }) { server in
            let (first, _) = try await server.createAccount("helper", bot: true)
            for _ in 0..<20 { _ = try await server.client.login("helper") }
            expectStatus(try await first.get("/v1/me"), 200)
        }
    }
}

/// What ran, in order, from any thread.
private final class Recorder: Sendable {
    private let list = Mutex<[String]>([])
    func append(_ item: String) { list.withLock { $0.append(item) } }
    var items: [String] { list.withLock { $0 } }
}
