import Foundation
import IMBots
import IMClient
import IMProtocol
import Templates
import Testing

/// Effects whose every call fails, as a server that is down.
struct FailingEffects: BotEffects {
    struct Down: Error, CustomStringConvertible {
        var description: String { "server unreachable" }
    }

    func send(_ message: OutgoingMessage) async throws -> Message? { throw Down() }
    func updateProfile(_ update: ProfileUpdate) async throws { throw Down() }
    func http(_ request: TransportRequest) async throws -> TransportResponse { throw Down() }
}

@Suite struct ActionRunnerTests {
    /// Decides and runs `event` against `bot` with `effects`.
    func run(_ bot: BotDefinition, _ event: BotEvent, effects: some BotEffects = RecordingEffects(),
             state: [String: TemplateValue]? = nil, now: String = "2025-01-06T10:00:00Z") async -> ActionReport {
        let context = Bots.context(bot, now: now, state: state)
        let decision = RuleEngine(bot: bot).decide(event, context: context)
        return await ActionRunner.run(decision, event: event, context: context, effects: effects)
    }

    @Test func replyAnswersInTheEventsConversationWithADeterministicID() async throws {
        let bot = try Bots.withRules("""
              - { name: greet, do: [ { reply: "Hi {{sender.nickname}}" }, { reply: { text: quoted, quote: true } } ] }
            """)
        let effects = RecordingEffects()
        let report = await run(bot, Bots.message("hello", from: "alice", position: 1234), effects: effects)
        #expect(report.failures.isEmpty)
        #expect(effects.messages == [
            OutgoingMessage(to: .user("alice"), text: "Hi alice", clientMessageID: "b:testbot:1234:greet:0",
                            rule: "greet", action: .reply),
            OutgoingMessage(to: .user("alice"), text: "quoted", clientMessageID: "b:testbot:1234:greet:1",
                            replyTo: MessageID(rawValue: 1234), rule: "greet", action: .reply),
        ])
    }

    @Test func theSameEventAlwaysGivesTheSameMessageIDs() async throws {
        let bot = try Bots.withRules("  - { name: greet, do: [ { reply: hi }, { send: { to: group:ops, text: x } } ] }")
        let first = RecordingEffects(), second = RecordingEffects()
        _ = await run(bot, Bots.message("a", position: 99), effects: first)
        _ = await run(bot, Bots.message("a", position: 99), effects: second)
        #expect(first.messages.map(\.clientMessageID) == ["b:testbot:99:greet:0", "b:testbot:99:greet:1"])
        #expect(first.messages.map(\.clientMessageID) == second.messages.map(\.clientMessageID))
        _ = await run(bot, Bots.message("a", position: 100), effects: second)
        #expect(second.messages.last?.clientMessageID == "b:testbot:100:greet:1")
    }

    @Test func idsLongerThanTheServerAllowsAreHashed() {
        let long = String(repeating: "r", count: 64)
        let id = IdempotencyKey.make(bot: String(repeating: "b", count: 64), position: 1, rule: long, actionIndex: 0)
        #expect(id.count == 44)
        #expect(id.hasPrefix("b:h:"))
        #expect(id == IdempotencyKey.make(bot: String(repeating: "b", count: 64), position: 1, rule: long, actionIndex: 0))
        #expect(id != IdempotencyKey.make(bot: String(repeating: "b", count: 64), position: 1, rule: long, actionIndex: 1))
    }

    @Test func sendAndForwardGoWhereTheirTemplatesSay() async throws {
        let bot = try Bots.withRules("""
              - name: route
                when: { command: route }
                do:
                  - send: "here"
                  - send: { to: "group:{{args}}", text: "to {{args}}" }
                  - forward: group:oncall
            """)
        let effects = RecordingEffects()
        let report = await run(bot, Bots.message("/route ops", from: "alice", in: "room:lobby"), effects: effects)
        #expect(report.failures.isEmpty)
        #expect(effects.messages.map { "\($0.action) \($0.to) \($0.text)" } == [
            "send room:lobby here",
            "send group:ops to ops",
            "forward group:oncall alice in room:lobby: /route ops",
        ])
    }

    @Test func templatesSeeTheEventTheBotAndTheTime() async throws {
        let bot = try Bots.withRules("""
              - name: all
                do:
                  - reply: "{{sender.username}}|{{message.text}}|{{message.seq}}|{{conversation.kind}}|{{conversation.name}}|{{bot.username}}|{{event.type}}"
                  - reply: "{{now.rfc3339}}|{{now.local}}|{{now.date}}|{{now.time}}|{{now.hour}}|{{now.weekday}}|{{now.timezone}}"
            """, header: "timezone: America/New_York")
        let effects = RecordingEffects()
        _ = await run(bot, Bots.message("hi there", from: "alice", in: "group:ops", position: 5), effects: effects)
        #expect(effects.messages.map(\.text) == [
            "alice|hi there|5|group|ops|testbot|message",
            "2025-01-06T10:00:00.000Z|2025-01-06T05:00:00-05:00|2025-01-06|05:00|5|mon|America/New_York",
        ])
    }

    @Test func updateProfileRendersItsFields() async throws {
        let bot = try Bots.withRules("""
              - name: away
                when: { command: away }
                do: [ { update_profile: { signature: "Away: {{args}}", attrs: { status: away } } } ]
            """)
        let effects = RecordingEffects()
        let report = await run(bot, Bots.message("/away back at 3"), effects: effects)
        #expect(report.failures.isEmpty)
        guard case .profile(let update)? = effects.records.first else {
            Issue.record("expected a profile update, got \(effects.records)")
            return
        }
        #expect(update == ProfileUpdate(signature: "Away: back at 3", attrs: ["status": "away"]))
    }

    @Test func httpSendsJSONWithAnIdempotencyKeyAndItsResponseFeedsLaterActions() async throws {
        let bot = try Bots.withRules("""
              - name: ticket
                when: { command: ticket }
                do:
                  - http:
                      method: POST
                      url: "https://tickets.example.com/api?by={{sender.username}}"
                      headers: { Authorization: "Bearer t0ken" }
                      json: { title: "{{args}}", priority: 2, tags: [chat, "{{sender.username}}"], urgent: false }
                      timeout: 3s
                      as: created
                  - reply: "#{{created.body.id}} ({{created.status}}) {{created.text}}"
            """)
        let key = IdempotencyKey.make(bot: "testbot", position: 7, rule: "ticket", actionIndex: 0)
        let effects = RecordingEffects(responses: [key: TransportResponse(
            status: 201, headers: [("Content-Type", "application/json")], body: Data(#"{"id":42}"#.utf8))])
        let report = await run(bot, Bots.message("/ticket printer \"on\" fire"), effects: effects)
        #expect(report.failures.isEmpty)
        guard case .http(let request)? = effects.records.first else {
            Issue.record("expected an http request, got \(effects.records)")
            return
        }
        #expect(request.method == "POST")
        #expect(request.url == "https://tickets.example.com/api?by=alice")
        #expect(request.header("Authorization") == "Bearer t0ken")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Idempotency-Key") == "b:testbot:7:ticket:0")
        #expect(request.timeout == .seconds(3))
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self)
                == #"{"title":"printer \"on\" fire","priority":2,"tags":["chat","alice"],"urgent":false}"#)
        #expect(effects.messages.map(\.text) == [#"#42 (201) {"id":42}"#])
    }

    @Test func aFailedExpectationFailsTheActionAndSkipsTheRestOfItsRuleOnly() async throws {
        let bot = try Bots.withRules("""
              - name: ticket
                do:
                  - http: { url: "https://tickets.example.com", as: created }
                  - reply: "created"
              - name: other
                do: [ { reply: "other rule still runs" } ]
            """)
        let effects = RecordingEffects { _ in TransportResponse(status: 503, body: Data("maintenance".utf8)) }
        let report = await run(bot, Bots.message("x"), effects: effects)
        #expect(report.failures == [ActionError(code: .unexpectedStatus,
            message: "HTTP 503 from GET https://tickets.example.com, expected 2xx: maintenance",
            rule: "ticket", actionIndex: 0)])
        #expect(report.outcomes.map(\.description) == [
            "ticket action 1 (http): failed: HTTP 503 from GET https://tickets.example.com, expected 2xx: maintenance",
            "ticket action 2 (reply): not run, because action 1 of the rule failed",
            "other action 1 (reply): performed: to user:alice \"other rule still runs\"",
        ])
        if case .skipped(after: 0) = report.outcomes[1].status {} else { Issue.record("expected the reply to be skipped") }
        #expect(effects.messages.map(\.text) == ["other rule still runs"])
    }

    @Test func aFailingEffectIsReportedWithRuleAndActionIndex() async throws {
        let bot = try Bots.withRules("  - { name: greet, do: [ { set: { seen: 1 } }, { reply: hi } ] }")
        let report = await run(bot, Bots.message("x"), effects: FailingEffects())
        #expect(report.failures.map(\.description) == [
            "rule 'greet', action 2: sending to user:alice failed: server unreachable"])
        #expect(report.failures.first?.code == .effectFailed)
        #expect(report.state["seen"] == 1)
    }

    @Test func setAndIncrementReturnTheNewState() async throws {
        let bot = try Bots.withRules("""
              - name: count
                do:
                  - increment: messages
                  - increment: { key: spam.count, by: 5 }
                  - set: { last: "{{sender.username}}", flags: { seen: true } }
                  - reply: "{{state.messages}} {{state.spam.count}} {{state.last}}"
            """, header: "state: { messages: 41 }")
        let effects = RecordingEffects()
        let report = await run(bot, Bots.message("x"), effects: effects)
        #expect(report.stateChanged)
        #expect(report.state == ["messages": 42, "spam": ["count": 5], "last": "alice", "flags": ["seen": true]])
        #expect(effects.messages.map(\.text) == ["42 5 alice"])
    }

    @Test func incrementingTextFailsClearly() async throws {
        let bot = try Bots.withRules("  - { name: c, do: [ { increment: name } ] }", header: "state: { name: bob }")
        let report = await run(bot, Bots.message("x"), effects: RecordingEffects())
        #expect(report.failures.map(\.message) == ["state 'name' holds the text \"bob\", not a number"])
        #expect(!report.stateChanged)
    }

    @Test func aMessageThatRendersEmptyFails() async throws {
        let bot = try Bots.withRules("  - { name: c, do: [ { reply: \"{{state.note}}\" } ] }", header: "state: { note: '' }")
        let report = await run(bot, Bots.message("x"), effects: RecordingEffects())
        #expect(report.failures.map(\.code) == [.invalidText])
    }

    @Test func dryAndShadowRulesPerformNothingButReportWhatTheyWouldDo() async throws {
        for mode in ["dry", "shadow"] {
            let bot = try Bots.withRules("""
                  - name: r
                    mode: \(mode)
                    do:
                      - reply: "would reply"
                      - http: { url: "https://example.com/hook", as: hook }
                      - increment: count
                """)
            let effects = RecordingEffects()
            let report = await run(bot, Bots.message("x"), effects: effects)
            #expect(effects.records.isEmpty)
            #expect(!report.stateChanged)
            #expect(report.state.isEmpty)
            #expect(report.outcomes.map(\.description) == [
                "r action 1 (reply): \(mode) run, not performed: to user:alice \"would reply\"",
                "r action 2 (http): \(mode) run, not performed: GET https://example.com/hook",
                "r action 3 (increment): \(mode) run, not performed: count = 1",
            ])
        }
    }
}
