import IMBots
import IMProtocol
import Testing

@Suite struct CommandMatcherTests {
    @Test func aCommandMatchesWithItsArgumentsBound() throws {
        let bot = try Bots.withRules("  - { name: ticket, when: { command: ticket }, do: [ { reply: \"{{args}}\" } ] }")
        let decision = RuleEngine(bot: bot).decide(Bots.message("/ticket  printer on   fire"), context: Bots.context(bot))
        let bindings = try #require(decision.firings.first?.bindings)
        #expect(bindings.args == "printer on   fire")
        #expect(bindings.argv == ["printer", "on", "fire"])
    }

    @Test func aCommandMayNameThisBotButNoOtherOne() throws {
        #expect(try Bots.matches("{ command: ticket }", "/ticket@testbot printer"))
        #expect(try Bots.matches("{ command: ticket }", "/TICKET printer"))
        #expect(try !Bots.matches("{ command: ticket }", "/ticket@otherbot printer"))
        #expect(try !Bots.matches("{ command: ticket }", "/tickets"))
        #expect(try !Bots.matches("{ command: ticket }", "ticket"))
        #expect(try !Bots.matches("{ command: ticket }", "/ticket,"))
    }

    @Test func aCommandCanHaveSeveralNames() throws {
        #expect(try Bots.matches("{ command: [ticket, t] }", "/t broken"))
        #expect(try Bots.matches("{ command: { name: [ticket, /t] } }", "/t broken"))
    }

    @Test func argumentsCanBeRequiredOrForbidden() throws {
        #expect(try Bots.matches("{ command: { name: ticket, args: required } }", "/ticket x"))
        #expect(try !Bots.matches("{ command: { name: ticket, args: required } }", "/ticket   "))
        #expect(try Bots.matches("{ command: { name: help, args: none } }", "/help"))
        #expect(try !Bots.matches("{ command: { name: help, args: none } }", "/help me"))
    }

    @Test func commandRulesAndPlainRulesFireInFileOrder() throws {
        let bot = try Bots.withRules("""
              - { name: log, when: { text: { starts_with: / } }, do: [ { set: { seen: yes } } ] }
              - { name: help, when: { command: help }, do: [ { reply: help } ] }
              - { name: all, do: [ { set: { any: yes } } ] }
              - { name: ticket, when: { command: ticket }, do: [ { reply: ticket } ] }
            """)
        #expect(Bots.fired(bot, Bots.message("/help")) == ["log", "help", "all"])
        #expect(Bots.fired(bot, Bots.message("/ticket x")) == ["log", "all", "ticket"])
        #expect(Bots.fired(bot, Bots.message("hello")) == ["all"])
    }
}

@Suite struct SenderAndPlaceMatcherTests {
    @Test func fromAcceptsAUserOrAListOrAMapping() throws {
        #expect(try Bots.matches("{ from: alice }", "x", from: "alice"))
        #expect(try Bots.matches("{ from: [Alice, bob] }", "x", from: "bob"))
        #expect(try !Bots.matches("{ from: [alice, bob] }", "x", from: "carol"))
        #expect(try Bots.matches("{ from: { users: [alice] } }", "x", from: "alice"))
    }

    @Test func fromCanExcludeOrRequireBots() throws {
        let bot = try Bots.withRules("  - { name: humans, when: { from: { bots: false } }, do: [ { stop: true } ] }")
        var event = Bots.message("hi", from: "robot")
        event.sender?.isBot = true
        #expect(Bots.fired(bot, event).isEmpty)
        #expect(Bots.fired(bot, Bots.message("hi", from: "alice")) == ["humans"])
    }

    @Test func fromWithARoleNeedsTheSendersRole() throws {
        let bot = try Bots.withRules("  - { name: admins, when: { from: { role: admin } }, do: [ { stop: true } ] }")
        var event = Bots.message("hi", in: "group:ops")
        #expect(Bots.fired(bot, event).isEmpty)
        event.senderRole = .member
        #expect(Bots.fired(bot, event).isEmpty)
        event.senderRole = .owner
        #expect(Bots.fired(bot, event) == ["admins"])
    }

    @Test func inAcceptsAddressesAndWildcards() throws {
        #expect(try Bots.matches("{ in: group:support }", "x", in: "group:support"))
        #expect(try !Bots.matches("{ in: group:support }", "x", in: "group:ops"))
        #expect(try Bots.matches("{ in: [room:lobby, 'group:*'] }", "x", in: "group:ops"))
        #expect(try Bots.matches("{ in: 'room:*' }", "x", in: "room:lobby"))
        #expect(try Bots.matches("{ in: direct }", "x"))
        #expect(try Bots.matches("{ in: user:alice }", "x", from: "alice"))
        #expect(try !Bots.matches("{ in: direct }", "x", in: "room:lobby"))
    }

    @Test func directGroupAndRoomFlagsAndNames() throws {
        #expect(try Bots.matches("{ direct: true }", "x"))
        #expect(try !Bots.matches("{ direct: true }", "x", in: "group:ops"))
        #expect(try Bots.matches("{ direct: false }", "x", in: "group:ops"))
        #expect(try Bots.matches("{ group: true }", "x", in: "group:ops"))
        #expect(try Bots.matches("{ group: ops }", "x", in: "group:ops"))
        #expect(try !Bots.matches("{ group: ops }", "x", in: "group:dev"))
        #expect(try Bots.matches("{ room: [lobby, hall] }", "x", in: "room:hall"))
        #expect(try !Bots.matches("{ room: true }", "x", in: "group:hall"))
    }

    @Test func mentionsMeFindsTheBotsNameAsAWord() throws {
        #expect(try Bots.matches("{ mentions_me: true }", "hey @testbot, help"))
        #expect(try Bots.matches("{ mentions_me: true }", "ask @TestBot."))
        #expect(try !Bots.matches("{ mentions_me: true }", "hey @testbots"))
        #expect(try !Bots.matches("{ mentions_me: true }", "mail me at me@testbot.org"))
        #expect(try Bots.matches("{ mentions_me: false }", "hello all"))
    }

    @Test func eventSelectsKindsOfEvents() throws {
        let bot = try Bots.withRules("""
              - { name: joined, when: { event: [member_joined, member_left] }, do: [ { send: "bye or hi" } ] }
              - { name: everything, when: { event: any }, do: [ { stop: true } ] }
              - { name: messages, do: [ { stop: true } ] }
            """)
        let joined = BotEvent(event: Event(position: 3, type: .memberJoined, at: Timestamp(milliseconds: 0),
                                           conversation: ConversationRef(id: ConversationID(rawValue: 9), kind: .group,
                                                                         address: .group("ops")),
                                           user: BotEvent.message(from: "dave", text: "").sender))
        #expect(Bots.fired(bot, joined) == ["joined", "everything"])
        #expect(Bots.fired(bot, Bots.message("hi")) == ["everything"])
        // A kind this version does not know reaches only `event: any` rules.
        var unknown = joined
        unknown.event.type = .other("poll_closed")
        #expect(Bots.fired(bot, unknown) == ["everything"])
    }

    @Test func anyNeedsOneAlternativeAndNotNeedsNone() throws {
        let when = "{ any: [ { from: alice }, { text: { contains: please } } ], not: { text: { contains: spam } } }"
        #expect(try Bots.matches(when, "hi", from: "alice"))
        #expect(try Bots.matches(when, "please help", from: "bob"))
        #expect(try !Bots.matches(when, "hi", from: "bob"))
        #expect(try !Bots.matches(when, "please buy spam", from: "bob"))
    }

    @Test func anEmptyWhenMatchesEveryMessage() throws {
        let bot = try Bots.withRules("  - { name: r, do: [ { stop: true } ] }")
        #expect(Bots.fired(bot, Bots.message("anything")) == ["r"])
    }

    @Test func hoursAndDaysReadTheClockInTheRulesZone() throws {
        let bot = try Bots.withRules("""
              - name: office
                when: { hours: ["09:00-12:00", "13:00-17:00"], days: mon-fri, timezone: Europe/Berlin }
                do: [ { stop: true } ]
              - name: night
                when: { hours: "22:00-06:00" }
                do: [ { stop: true } ]
            """)
        let event = Bots.message("hi")
        #expect(Bots.fired(bot, event, now: "2025-01-06T10:00:00Z") == ["office"])  // Monday 11:00 in Berlin
        #expect(Bots.fired(bot, event, now: "2025-01-06T11:30:00Z").isEmpty)        // 12:30: lunch
        #expect(Bots.fired(bot, event, now: "2025-01-11T10:00:00Z").isEmpty)        // Saturday
        #expect(Bots.fired(bot, event, now: "2025-07-07T14:59:00Z") == ["office"])  // 16:59 in summer time
        #expect(Bots.fired(bot, event, now: "2025-07-07T15:00:00Z").isEmpty)        // 17:00 in summer time
        #expect(Bots.fired(bot, event, now: "2025-01-06T23:30:00Z") == ["night"])   // UTC: the bot's default
        #expect(Bots.fired(bot, event, now: "2025-01-06T05:59:00Z") == ["night"])
    }
}
