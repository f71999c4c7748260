import IMBots
import IMProtocol
import Templates
import Testing

/// The moderation matchers: `rate`, `repeated`, `links`, `mentions`, `from: {joined_within}`,
/// `state`, and member events.
@Suite struct ModerationMatcherTests {
    /// Decides `events` in order at one-second steps from `start`, recording each decision's
    /// counter hits as the runner does; the rules fired for each.
    static func run(_ bot: BotDefinition, _ events: [BotEvent], start: Int64 = 1_736_157_600_000,
                    step: Int64 = 1000, state: [String: TemplateValue]? = nil) -> [[String]] {
        let engine = RuleEngine(bot: bot)
        let windows = EventWindows()
        var fired: [[String]] = []
        for (index, event) in events.enumerated() {
            var context = BotContext(definition: bot, state: state, now: Timestamp(milliseconds: start + Int64(index) * step))
            context.windows = windows
            let decision = engine.decide(event, context: context)
            windows.record(decision.windowHits, at: context.now.milliseconds)
            fired.append(decision.firings.map(\.rule.name))
        }
        return fired
    }

    static func message(_ text: String, from user: String = "alice", in address: String = "group:lobby") -> BotEvent {
        Bots.message(text, from: user, in: address)
    }

    @Test func rateFiresPastTheLimitPerSender() throws {
        let bot = try Bots.withRules("""
              - { name: flood, when: { rate: { per: sender, more_than: 3, within: 10s } }, do: [ { reply: slow } ] }
            """)
        let alice = (0..<5).map { Self.message("m\($0)") }
        #expect(Self.run(bot, alice) == [[], [], [], ["flood"], ["flood"]])
        // Another sender has a counter of their own.
        let mixed = [Self.message("a"), Self.message("b"), Self.message("c"), Self.message("d", from: "bob")]
        #expect(Self.run(bot, mixed) == [[], [], [], []])
    }

    @Test func rateForgetsEventsOlderThanItsWindow() throws {
        let bot = try Bots.withRules("""
              - { name: flood, when: { rate: { more_than: 2, within: 10s } }, do: [ { reply: slow } ] }
            """)
        // Six seconds apart: never more than two within ten seconds.
        #expect(Self.run(bot, (0..<6).map { Self.message("m\($0)") }, step: 6000) == Array(repeating: [], count: 6))
        #expect(Self.run(bot, (0..<3).map { Self.message("m\($0)") }, step: 4000) == [[], [], ["flood"]])
    }

    @Test func ratePerConversationCountsEverySender() throws {
        let bot = try Bots.withRules("""
              - { name: busy, when: { rate: { per: conversation, more_than: 2, within: 1m } }, do: [ { reply: busy } ] }
            """)
        let events = [Self.message("a"), Self.message("b", from: "bob"), Self.message("c", from: "carol"),
                      Self.message("d", from: "dave", in: "group:other")]
        #expect(Self.run(bot, events) == [[], [], ["busy"], []])
    }

    @Test func rateCountsOnlyEventsThatPassTheOtherConditions() throws {
        let bot = try Bots.withRules("""
              - { name: links, when: { links: 1, rate: { more_than: 1, within: 1m } }, do: [ { reply: stop } ] }
            """)
        let events = [Self.message("see https://a.example"), Self.message("no link"), Self.message("no link"),
                      Self.message("www.b.example")]
        #expect(Self.run(bot, events) == [[], [], [], ["links"]])
    }

    @Test func rateOnJoinsPerConversation() throws {
        let bot = try Bots.withRules("""
              - { name: raid, when: { event: member_joined, rate: { per: conversation, more_than: 2, within: 1m } }, do: [ { set: { raid: true } } ] }
            """)
        let joins = ["a", "b", "c"].map { Self.memberEvent(.memberJoined, $0) }
        #expect(Self.run(bot, joins) == [[], [], ["raid"]])
    }

    @Test func repeatedCountsTheSameTextAcrossConversations() throws {
        let bot = try Bots.withRules("""
              - { name: copypasta, when: { repeated: { times: 3, within: 10m } }, do: [ { reply: stop } ] }
            """)
        let events = [Self.message("Buy now!"), Self.message("buy   NOW", in: "group:other"),
                      Self.message("something else"), Self.message("b u y n0w", in: "user:bot"),
                      Self.message("Buy now!", from: "bob")]
        #expect(Self.run(bot, events) == [[], [], [], ["copypasta"], []])
    }

    @Test func linksAndMentionsCount() throws {
        #expect(try Bots.matches("{ links: 2 }", "see https://a.example and www.b.com"))
        #expect(try !Bots.matches("{ links: 2 }", "see https://a.example and e.g. file.txt"))
        #expect(try Bots.matches("{ links: 1 }", "cheap pills at pills.xyz/buy"))
        #expect(try Bots.matches("{ links: { more_than: 0 } }", "(http://x.example)"))
        #expect(try Bots.matches("{ mentions: { more_than: 2 } }", "@a @b @c hello"))
        #expect(try !Bots.matches("{ mentions: { more_than: 2 } }", "@a @a @a mail me at x@example.com"))
        #expect(try !Bots.matches("{ mentions: 1 }", "no one"))
    }

    @Test func joinedWithinNeedsWhenTheSenderJoined() throws {
        let bot = try Bots.withRules("""
              - { name: newcomer, when: { from: { joined_within: 10m }, links: 1 }, do: [ { reply: no links yet } ] }
            """)
        let engine = RuleEngine(bot: bot)
        #expect(engine.decisionLookups.contains(.joined))
        var event = Self.message("look www.a.com")
        let context = Bots.context(bot)
        #expect(engine.decide(event, context: context).isEmpty)
        event.senderJoinedAt = Timestamp(milliseconds: context.now.milliseconds - 5 * 60_000)
        #expect(engine.decide(event, context: context).firings.map(\.rule.name) == ["newcomer"])
        event.senderJoinedAt = Timestamp(milliseconds: context.now.milliseconds - 11 * 60_000)
        #expect(engine.decide(event, context: context).isEmpty)
    }

    @Test func stateMatchesVariablesAndTreatsUnsetAsFalse() throws {
        let bot = try Bots.withRules("""
              - { name: calm, when: { state: { raid: false } }, do: [ { reply: calm } ] }
              - { name: raid, when: { state: { raid: true, "spam.level": 3 } }, do: [ { reply: raid } ] }
            """)
        #expect(Self.run(bot, [Self.message("x")]) == [["calm"]])
        #expect(Self.run(bot, [Self.message("x")], state: ["raid": true, "spam": ["level": 3]]) == [["raid"]])
        #expect(Self.run(bot, [Self.message("x")], state: ["raid": true]) == [[]])
    }

    @Test(arguments: [EventType.memberJoined, .joinRequested, .memberLeft])
    func memberEventsFireTheirRules(_ type: EventType) throws {
        let bot = try Bots.withRules("""
              - { name: r, when: { event: [member_joined, join_requested, member_left] }, do: [ { send: "{{member.username}}" } ] }
            """)
        #expect(Self.run(bot, [Self.memberEvent(type, "dave")]) == [["r"]])
    }

    @Test func countingMatchersAreRefusedInsideAnyOrNot() {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - name: r
                when: { any: [ { rate: { more_than: 1, within: 1m } } ] }
                do: [ { reply: x } ]
              - name: s
                when: { rate: { per: everyone, more_than: 1, within: 1m } }
                do: [ { reply: x } ]
              - name: t
                when: { links: 0 }
                do: [ { reply: x } ]
              - name: u
                when: { repeated: { times: 1, within: 1m } }
                do: [ { reply: x } ]
            """)
        #expect(errors.contains { $0.contains("5:28: 'rate' can only be set at the top of a rule's 'when'") })
        #expect(errors.contains { $0.contains("'per' is sender or conversation, not 'everyone'") })
        #expect(errors.contains { $0.contains("the count must be at least 1") })
        #expect(errors.contains { $0.contains("'times' must be from 2 to 1000") })
    }

    static func memberEvent(_ type: EventType, _ user: String, in group: String = "lobby") -> BotEvent {
        let member = BotEvent.message(from: user, text: "").sender
        let event = Event(position: 9, type: type, at: Timestamp(milliseconds: 1_736_157_600_000),
                          conversation: ConversationRef(id: ConversationID(rawValue: 5), kind: .group,
                                                        address: .group(group)),
                          user: member)
        return BotEvent(event: event, sender: member)
    }
}
