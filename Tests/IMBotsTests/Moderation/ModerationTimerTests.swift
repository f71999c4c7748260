import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Logging
import Synchronization
import TestSupport
import Testing

/// The timer service on a manual clock over a fake server: schedules with missed runs
/// under each policy, quiet-period triggers, verification deadlines.
@Suite(.timeLimit(.minutes(1))) struct ModerationTimerTests {
    /// A server that answers every call with an empty success and records what was asked.
    final class QuietServer: Sendable {
        private let calls = Mutex<[String]>([])
        var transport: FakeTransport {
            FakeTransport { [self] request in
                calls.withLock { $0.append("\(request.method) \(request.url)") }
                return TransportResponse(status: 200, headers: [("Content-Type", "application/json")],
                                         body: Data(#"{"group":"lobby","action":"kick","user":"x","changed":true}"#.utf8))
            }
        }
        var requests: [String] { calls.withLock { $0 } }
    }

    static let hour: Int64 = 3_600_000

    /// Runs the timer service of `bot` until `until` holds; the journal's queued texts.
    static func withTimers(_ bot: String, wall: Int64, server: QuietServer = QuietServer(),
                           before: (BotPartsFixture) -> Void = { _ in },
                           _ body: (BotPartsFixture) async throws -> Void) async throws {
        let time = ManualTime(wallMilliseconds: wall)
        let fixture = try await BotPartsFixture(bot: bot, transport: server.transport, time: time)
        before(fixture)
        let outbox = Outbox(parts: fixture.parts, loggedIn: Latch())
        let session = BotSession(identity: BotContext.Identity(username: "testbot"), startedAt: wall)
        session.begin(as: session.identity)
        let http = HTTPActionClient(allow: HTTPAllowList(), time: time)
        let service = TimerService(parts: fixture.parts, works: [ModerationTimers(run: BotRun(parts: fixture.parts, outbox: outbox, session: session, http: http))])
        try await ensuring({ try await withService(service) { try await body(fixture) } }) { await http.shutdown() }
    }

    static func queued(_ fixture: BotPartsFixture) -> [String] {
        fixture.parts.journal.state.outbox.map(\.text)
    }

    static let morning = """
        bot: testbot
        account: { username: testbot, password: secret-password }
        rules:
          - name: morning
            when: { schedule: "0 9 * * *", timezone: UTC, missed: POLICY }
            do: [ { send: { to: "group:lobby", text: "Good morning ({{now.date}})" } } ]
        """

    /// Monday 2026-01-05 09:30 UTC; the schedule last ran three days and a half before.
    static let wall = Timestamp(rfc3339: "2026-01-05T09:30:00Z")?.milliseconds ?? 0

    @Test(arguments: [("skip", 0), ("once", 1), ("all", 4)])
    func missedRunsAfterADowntimeFollowThePolicy(_ policy: String, _ runs: Int) async throws {
        let bot = Self.morning.replacingOccurrences(of: "POLICY", with: policy)
        try await Self.withTimers(bot, wall: Self.wall, before: { fixture in
            let id = fixture.parts.rules.now.definition.rules[0].trigger?.id ?? ""
            fixture.parts.moderation.book.setScheduled(rule: id, at: Self.wall - 84 * Self.hour)
        }) { fixture in
            let id = fixture.parts.rules.now.definition.rules[0].trigger?.id ?? ""
            try await eventually("the missed runs are handled") {
                fixture.parts.moderation.book.state.schedules[id] == Self.wall - 30 * 60_000
            }
            #expect(Self.queued(fixture).count == runs)
            if runs == 1 { #expect(Self.queued(fixture) == ["Good morning (2026-01-05)"]) }
            // The next run is tomorrow at 09:00, on the runner's clock.
            await fixture.time.waitForSleepers(1)
            fixture.time.advance(by: .seconds(23 * 3600 + 30 * 60))
            try await eventually("tomorrow's run") { Self.queued(fixture).count == runs + 1 }
            #expect(Self.queued(fixture).last == "Good morning (2026-01-06)")
        }
    }

    /// Every way in goes one run: a scheduled `send` longer than a message may be is split
    /// into the same parts as the same `send` answering a feed event.
    @Test func aLongScheduledSendIsSplitLikeAFeedOne() async throws {
        let long = (1...700).map { "line \($0) of the report" }.joined(separator: "\\n")
        let bot = """
            bot: testbot
            account: { username: testbot, password: secret-password }
            rules:
              - name: report
                when: { schedule: "0 9 * * *", timezone: UTC, missed: once }
                do: [ { send: { to: "group:lobby", text: "\(long)" } } ]
              - name: asked
                when: { direct: true }
                do: [ { send: { to: "group:lobby", text: "\(long)" } } ]
            """
        try await Self.withTimers(bot, wall: Self.wall, before: { fixture in
            let id = fixture.parts.rules.now.definition.rules[0].trigger?.id ?? ""
            fixture.parts.moderation.book.setScheduled(rule: id, at: Self.wall - 84 * Self.hour)
        }) { fixture in
            func sent(by rule: String) -> [String] {
                fixture.parts.journal.state.outbox.filter { $0.rule == rule }.map(\.text)
            }
            try await eventually("the missed run is handled") { !sent(by: "report").isEmpty }
            let session = BotSession(identity: BotContext.Identity(username: "testbot"), startedAt: Self.wall)
            let handler = EventHandler(
                parts: fixture.parts, session: session,
                senders: SenderDirectory(client: fixture.parts.client, time: fixture.time, bot: "testbot") { _ in },
                outbox: Outbox(parts: fixture.parts, loggedIn: Latch()),
                lanes: ConversationLanes(parts: fixture.parts, session: session),
                http: HTTPActionClient(allow: HTTPAllowList(), time: fixture.time))
            var event = Bots.message("status?", position: 1).event
            event.at = Timestamp(milliseconds: fixture.time.wallMilliseconds)
            await handler.receive(event)
            let scheduled = sent(by: "report")
            #expect(scheduled.count == 4)
            #expect(scheduled.allSatisfy { $0.count <= Limits.messageTextLength.upperBound })
            #expect(scheduled.first?.hasPrefix("(1/4) line 1 of the report") == true)
            #expect(scheduled == sent(by: "asked"))
        }
    }

    @Test func aFirstStartMissesNothing() async throws {
        let bot = Self.morning.replacingOccurrences(of: "POLICY", with: "all")
        try await Self.withTimers(bot, wall: Self.wall) { fixture in
            let id = fixture.parts.rules.now.definition.rules[0].trigger?.id ?? ""
            try await eventually("the schedule counts from now") {
                fixture.parts.moderation.book.state.schedules[id] == Self.wall
            }
            await fixture.time.waitForSleepers(1)
            #expect(Self.queued(fixture).isEmpty)
        }
    }

    @Test func aQuietTriggerFiresOnceAfterItsPeriodAndAgainOnlyAfterAnotherEvent() async throws {
        let bot = """
            bot: testbot
            account: { username: testbot, password: secret-password }
            state: { raid: true }
            rules:
              - name: raid-over
                when: { quiet: { event: [member_joined, join_requested], for: 10m }, state: { raid: true } }
                do: [ { send: "quiet for 10 minutes" }, { set: { raid: false } } ]
            """
        try await Self.withTimers(bot, wall: Self.wall, before: { fixture in
            // The fixture's journal starts empty, not with the file's `state:`.
            fixture.parts.journal.record(.handled(position: 0, state: [.set(path: ["raid"], value: true)], messages: []))
        }) { fixture in
            let observer = ModerationObserver(parts: fixture.parts)
            let lobby = ConversationRef(id: ConversationID(rawValue: 5), kind: .group, address: .group("lobby"))
            func join(_ name: String) async {
                let event = Event(position: 1, type: .memberJoined, at: Timestamp(milliseconds: fixture.time.wallMilliseconds),
                                  conversation: lobby, user: BotEvent.message(from: name, text: "").sender)
                await observer.observe(event, fixture.parts.rules.now.definition)
            }
            await join("a")
            await fixture.time.waitForSleepers(1)
            fixture.time.advance(by: .seconds(300))
            await join("b")
            await fixture.time.waitForSleepers(1)
            // Ten minutes after the first join, but five after the last: nothing yet.
            fixture.time.advance(by: .seconds(300))
            await fixture.time.waitForSleepers(1)
            #expect(Self.queued(fixture).isEmpty)
            fixture.time.advance(by: .seconds(300))
            // The rule's message is queued before its watch is recorded as ended: wait for both.
            try await eventually("the quiet rule ran and its watch ended") {
                Self.queued(fixture) == ["quiet for 10 minutes"] && fixture.parts.moderation.book.state.quiet.isEmpty
            }
            #expect(fixture.parts.journal.variables["raid"] == false)
            // Another quiet period with raid off: the rule's state condition holds it back.
            await join("c")
            await fixture.time.waitForSleepers(1)
            fixture.time.advance(by: .seconds(601))
            try await eventually("the watch ended") { fixture.parts.moderation.book.state.quiet.isEmpty }
            #expect(Self.queued(fixture) == ["quiet for 10 minutes"])
        }
    }

    @Test func aNewcomerWhoDoesNotAnswerIsKickedWithACase() async throws {
        let bot = """
            bot: testbot
            account: { username: testbot, password: secret-password }
            moderation: { log: "group:mods" }
            rules:
              - name: verify
                when: { event: member_joined, group: lobby }
                do: [ { verify: { text: "Say purple", answer: purple, within: 10m } } ]
            """
        let server = QuietServer()
        try await Self.withTimers(bot, wall: Self.wall, server: server) { fixture in
            let book = fixture.parts.moderation.book
            book.setVerification(group: "lobby", user: "dave", PendingVerification(
                group: "lobby", user: "dave", answer: "purple", deadline: Self.wall + 600_000, rule: "verify", fail: "kick"))
            await fixture.time.waitForSleepers(1)
            fixture.time.advance(by: .seconds(600))
            // The case's line is queued after the verification is ended: wait for both.
            try await eventually("dave was removed") { book.state.verifications.isEmpty && !Self.queued(fixture).isEmpty }
            #expect(server.requests.contains("POST http://127.0.0.1:1/v1/groups/lobby/moderation"))
            #expect(book.modCase(1)?.line == "#1 kick @dave in group:lobby, rule verify: \"no answer to the verification\"")
            #expect(Self.queued(fixture) == ["#1 kick @dave in group:lobby, rule verify: \"no answer to the verification\""])
        }
    }
}

/// A newcomer's answer to their challenge, handled before the rules.
@Suite(.timeLimit(.minutes(1))) struct VerificationAnswerTests {
    @Test func theRightAnswerLetsThemPostAndWrongOnesGetAFewHints() async throws {
        let server = ModerationTimerTests.QuietServer()
        let fixture = try await BotPartsFixture(transport: server.transport)
        let book = fixture.parts.moderation.book
        book.setVerification(group: "lobby", user: "dave", PendingVerification(
            group: "lobby", user: "dave", answer: "blue", deadline: .max, rule: "verify", fail: "kick"))
        let observer = ModerationObserver(parts: fixture.parts)
        func say(_ text: String, _ position: Int64, from user: String = "dave") async -> [String]? {
            let event = Bots.message(text, from: user, position: position).event
            return await observer.answer(event)?.map(\.text)
        }
        #expect(await say("hello", 1, from: "erin") == nil)
        for position in 2...4 {
            #expect(await say("green?", Int64(position)) == ["That is not the answer; please read the question again."])
        }
        #expect(await say("red", 5) == [])
        #expect(book.verification(of: "dave")?.attempts == 4)
        #expect(server.requests.isEmpty)
        #expect(await say("It is BLUE!", 6) == ["Thank you! You can post in group:lobby now."])
        #expect(server.requests == ["POST http://127.0.0.1:1/v1/groups/lobby/moderation"])
        #expect(book.verification(of: "dave") == nil)
        #expect(await say("blue", 7) == nil)
    }
}
