#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Logging
import Synchronization
import TestSupport
import Testing

/// The runner's bounds: budgets on its clock, tables that forget idle conversations,
/// values that are clamped instead of trapping, and an audit log that survives a full disk.
@Suite(.timeLimit(.minutes(1))) struct RunnerLimitsTests {
    static func definition(_ limits: String) throws -> BotDefinition {
        try Bots.load("""
            bot: testbot
            account: { username: testbot, password: secret-password }
            limits: \(limits)
            """)
    }

    @Test func aBudgetMakesASendWaitOnTheRunnersClock() throws {
        let time = ManualTime()
        let budget = SendBudget(try Self.definition("{ per_conversation: 1/s, per_group: 20/min, total: 30/s }").limits,
                                time: time)
        #expect(budget.reserve(.user("alice")) == nil)
        #expect(budget.reserve(.user("alice")) == .seconds(1))
        // Another conversation has its own budget.
        #expect(budget.reserve(.user("bob")) == nil)
        time.advance(by: .seconds(1))
        #expect(budget.reserve(.user("alice")) == nil)
    }

    @Test func budgetsAndTheLoopGuardForgetIdleConversations() throws {
        let time = ManualTime()
        let budget = SendBudget(BotDefinition.Limits.standard, time: time)
        let loopGuard = LoopGuard(maxPerMinute: 20, time: time)
        for index in 0..<500 {
            _ = budget.reserve(.user("user\(index)"))
            _ = loopGuard.allow(.user("user\(index)"))
        }
        #expect(budget.bucketCount == 501)
        #expect(loopGuard.conversationCount == 500)
        time.advance(by: .seconds(61))
        _ = budget.reserve(.user("someone"))
        _ = loopGuard.allow(.user("someone"))
        #expect(budget.bucketCount <= 2)
        #expect(loopGuard.conversationCount == 1)
    }

    @Test func theLoopGuardCapsRepliesPerConversationPerMinute() {
        let time = ManualTime()
        let loopGuard = LoopGuard(maxPerMinute: 3, time: time)
        #expect((0..<5).map { _ in loopGuard.allow(.user("alice")) } == [true, true, true, false, false])
        time.advance(by: .seconds(60))
        #expect(loopGuard.allow(.user("alice")))
    }

    @Test func extremeValuesAreClampedNotTrappedOn() throws {
        let time = ManualTime()
        let definition = try Self.definition("{ per_conversation: 1/36500d, total: 9223372036854775807/s, queue: 10000 }")
        let budget = SendBudget(definition.limits, time: time)
        #expect(budget.reserve(.user("alice")) == nil)
        let wait = try #require(budget.reserve(.user("alice")))
        #expect(wait > .seconds(86_400 * 365))
        let configuration = RunnerConfiguration(
            serverURL: "http://127.0.0.1:1", botsDirectory: "/tmp", stateDirectory: "/tmp", environment: [:],
            watchInterval: .infinity, pollTimeout: 100_000)
        #expect(configuration.watchInterval == 1 && configuration.pollTimeout == 50)
        #expect(RunnerConfiguration(serverURL: "", botsDirectory: "", stateDirectory: "", environment: [:],
                                    watchInterval: 1e300, pollTimeout: -5).watchInterval == 86_400)
        #expect(Duration.seconds(clamping: 1e300) > .seconds(1_000_000_000))
        #expect(Duration.seconds(clamping: -1) == .zero)
    }

    @Test func aCacheKeepsAtMostItsCapacity() {
        var cache = BoundedCache<Int>(capacity: 100, lifetime: 60)
        for index in 0..<10_000 { cache.store(index, for: "k\(index % 3000)", at: Double(index)) }
        #expect(cache.count == 100)
        #expect(cache.fresh("k999", now: 10_000) == 9999)
        #expect(cache.fresh("k0", now: 10_000) == nil)
    }

    @Test func aFullDiskCostsAuditLinesNotTheBot() throws {
        let metrics = RunnerMetrics()
        let logs = LogWatch()
        let audit = AuditLog(file: try LogFile(path: "/dev/full"), metrics: metrics,
                             logger: Logger(label: "test", sink: logs))
        let entry = AuditLog.Entry(at: "2026-01-05T09:00:00Z", bot: "b", rule: "r", configVersion: "v", action: "reply",
                                   mode: "enforce", outcome: "performed")
        for _ in 0..<3 { audit.record(entry) }
        #expect(metrics.auditFailures == 3)
        // Logged once, not once a line.
        #expect(logs.lines.filter { $0.message.contains("cannot write the audit log /dev/full") }.count == 1)
        #expect(metrics.render().contains("switchboard_runner_audit_failures_total 3"))
    }
}

/// Senders' profiles are looked up only when a rule needs them.
@Suite(.timeLimit(.minutes(1))) struct SenderLookupTests {
    @Test func theEngineKnowsWhatItsRulesReadAboutTheSender() throws {
        func bot(_ rule: String) throws -> RuleEngine {
            RuleEngine(bot: try Bots.withRules("  - { name: r, \(rule) }"))
        }
        let plain = try bot(#"when: { direct: true }, do: [ { reply: "re: {{message.text}} {{sender.username}}" } ]"#)
        #expect(plain.decisionLookups.isEmpty)
        #expect(plain.bot.rules[0].actionLookups.isEmpty)
        let nickname = try bot(#"do: [ { reply: "Hi {{sender.nickname}}" } ]"#)
        #expect(nickname.decisionLookups.isEmpty)
        #expect(nickname.bot.rules[0].actionLookups == .profile)
        #expect(try bot("do: [ { forward: group:oncall } ]").bot.rules[0].actionLookups == .profile)
        #expect(try bot("when: { from: { bots: false } }, do: [ { stop: true } ]").decisionLookups == .profile)
        #expect(try bot("when: { from: { role: admin } }, do: [ { stop: true } ]").decisionLookups == .role)
    }

    @Test(arguments: [("re: {{message.text}}", 0), ("Hi {{sender.nickname}}", 1)])
    func aProfileIsFetchedOnlyForARuleThatReadsItAndThenKept(_ template: String, _ lookups: Int) async throws {
        let users = Mutex(0)
        let transport = FakeTransport { request in
            guard request.url.contains("/v1/users/") else { return TransportResponse(status: 404) }
            users.withLock { $0 += 1 }
            let user = User(id: UserID(rawValue: 7), username: "alice", nickname: "Alice", createdAt: Timestamp(milliseconds: 0))
            return TransportResponse(status: 200, headers: [("Content-Type", "application/json")],
                                     body: try WireJSON.encoder().encode(user))
        }
        let fixture = try await BotPartsFixture(bot: """
            bot: testbot
            account: { username: testbot, password: secret-password }
            rules:
              - { name: answer, when: { direct: true }, do: [ { reply: "\(template)" } ] }
            """, transport: transport)
        let session = BotSession(identity: BotContext.Identity(username: "testbot"), startedAt: fixture.time.wallMilliseconds)
        let outbox = Outbox(parts: fixture.parts, loggedIn: session.loggedIn)
        let handler = EventHandler(
            parts: fixture.parts, session: session,
            senders: SenderDirectory(client: fixture.parts.client, time: fixture.time, bot: "testbot") { _ in },
            outbox: outbox, lanes: ConversationLanes(parts: fixture.parts, session: session),
            http: HTTPActionClient(allow: HTTPAllowList(), time: fixture.time))
        for position in 1...3 {
            var event = Bots.message("hello \(position)", position: Int64(position)).event
            event.at = Timestamp(milliseconds: fixture.time.wallMilliseconds)
            await handler.receive(event)
        }
        #expect(users.withLock { $0 } == lookups)
        let texts = fixture.parts.journal.state.outbox.map(\.text)
        #expect(texts.count == 3)
        if lookups == 1 { #expect(texts.allSatisfy { $0 == "Hi Alice" }) }
    }
}
