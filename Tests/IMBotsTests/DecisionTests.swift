import IMBots
import IMProtocol
import Testing

/// `decide`: rule order, `stop`, modes, and the events a bot never handles.
@Suite struct DecisionTests {
    let rules = """
          - { name: first, when: { text: { contains: a } }, do: [ { reply: first } ] }
          - { name: stopper, when: { text: { contains: b } }, MODE do: [ { reply: stop }, { stop: true } ] }
          - { name: last, do: [ { reply: last } ] }
        """

    func bot(mode: String) throws -> BotDefinition {
        try Bots.withRules(rules.replacingOccurrences(of: "MODE", with: mode.isEmpty ? "" : "mode: \(mode),"))
    }

    @Test func matchingRulesFireInFileOrder() throws {
        #expect(Bots.fired(try bot(mode: ""), Bots.message("a")) == ["first", "last"])
    }

    @Test func stopEndsEvaluationAfterItsRule() throws {
        let bot = try bot(mode: "")
        let decision = RuleEngine(bot: bot).decide(Bots.message("a b"), context: Bots.context(bot))
        #expect(decision.firings.map(\.rule.name) == ["first", "stopper"])
        #expect(decision.stoppedBy == "stopper")
    }

    @Test func aDryRuleFiresAndItsStopStillEndsEvaluation() throws {
        let decision = RuleEngine(bot: try bot(mode: "dry")).decide(Bots.message("b"), context: Bots.context(try bot(mode: "dry")))
        #expect(decision.firings.map(\.rule.name) == ["stopper"])
        #expect(decision.firings.map(\.mode) == [.dry])
        #expect(decision.stoppedBy == "stopper")
    }

    @Test func aShadowRuleFiresButItsStopIsIgnored() throws {
        let bot = try bot(mode: "shadow")
        let decision = RuleEngine(bot: bot).decide(Bots.message("b"), context: Bots.context(bot))
        #expect(decision.firings.map(\.rule.name) == ["stopper", "last"])
        #expect(decision.firings.map(\.mode) == [.shadow, .enforce])
        #expect(decision.stoppedBy == nil)
    }

    @Test func theBotsOwnMessagesAreIgnored() throws {
        let bot = try bot(mode: "")
        let decision = RuleEngine(bot: bot).decide(Bots.message("a", from: "testbot"), context: Bots.context(bot))
        #expect(decision.isEmpty)
        #expect(decision.ignored == .ownEvent)
    }

    @Test func theBotsOwnMessagesAreRecognisedByIdToo() throws {
        let bot = try bot(mode: "")
        let event = Bots.message("a", from: "renamed")
        var context = Bots.context(bot)
        context.bot.id = event.event.message?.senderID
        #expect(RuleEngine(bot: bot).decide(event, context: context).ignored == .ownEvent)
    }

    @Test func eventsOutsideListenAreIgnored() throws {
        let bot = try Bots.withRules("  - { name: r, do: [ { reply: x } ] }", header: "listen: [direct, \"group:support\"]")
        #expect(Bots.fired(bot, Bots.message("x")) == ["r"])
        #expect(Bots.fired(bot, Bots.message("x", in: "group:support")) == ["r"])
        let outside = RuleEngine(bot: bot).decide(Bots.message("x", in: "group:random"), context: Bots.context(bot))
        #expect(outside.ignored == .outsideListen("group:random"))
        #expect(outside.isEmpty)
    }

    @Test func systemNoticesAreIgnored() throws {
        let bot = try bot(mode: "")
        var event = Bots.message("alice joined")
        event.event.message?.type = .system
        #expect(RuleEngine(bot: bot).decide(event, context: Bots.context(bot)).ignored == .systemMessage)
    }
}

/// `explain`: the first failing condition in words, or what matched.
@Suite struct ExplainTests {
    @Test func explainNamesTheFirstFailingConditionOfEachRule() throws {
        let bot = try Bots.withRules("""
              - name: greet
                when: { direct: true, text: { regex: '^(hi|hello)\\b' } }
                do: [ { reply: hi } ]
              - name: vip
                when: { from: [bob, carol] }
                do: [ { reply: vip } ]
              - name: ticket
                when: { command: { name: ticket, args: required } }
                do: [ { reply: t }, { stop: true } ]
              - name: office
                when: { hours: "09:00-17:00", timezone: Europe/Berlin }
                do: [ { reply: o } ]
              - name: joins
                when: { event: member_joined }
                do: [ { send: j } ]
              - name: fallback
                do: [ { reply: f } ]
            """)
        let engine = RuleEngine(bot: bot)
        let lines = engine.explain(Bots.message("hey, /ticket"), context: Bots.context(bot, now: "2025-01-06T18:00:00Z"))
            .map(\.description)
        #expect(lines == [
            "greet: not matched — text does not match regex '^(hi|hello)\\b'",
            "vip: not matched — from: sender is 'alice', rule wants [bob, carol]",
            "ticket: not matched — command: text is not a command, rule wants /ticket",
            "office: not matched — hours: local time is 19:00 (Europe/Berlin), rule wants 09:00-17:00",
            "joins: not matched — event: event is message, rule wants member_joined",
            "fallback: fired — no conditions: matches every message event",
        ])
    }

    @Test func explainShowsBindingsSuppressionAndModes() throws {
        let bot = try Bots.withRules("""
              - { name: ticket, when: { command: ticket }, mode: dry, do: [ { reply: t }, { stop: true } ] }
              - { name: fallback, do: [ { reply: f } ] }
            """)
        let explanations = RuleEngine(bot: bot).explain(Bots.message("/ticket printer"), context: Bots.context(bot))
        #expect(explanations.map(\.verdict) == [.fired, .suppressed])
        #expect(explanations[0].reason == "all conditions hold (args = 'printer'); dry mode: its actions are logged, "
                + "not performed; its stop ends evaluation")
        #expect(explanations[1].reason == "matches, but rule 'ticket' stopped evaluation before it")
        #expect(explanations[0].bindings?.argv == ["printer"])
    }

    @Test func explainSaysWhyAnIgnoredEventIsIgnored() throws {
        let bot = try Bots.withRules("  - { name: r, do: [ { reply: f } ] }")
        let explanations = RuleEngine(bot: bot).explain(Bots.message("x", from: "testbot"), context: Bots.context(bot))
        #expect(explanations.map(\.description) == ["r: ignored — the bot caused this event itself"])
    }

    @Test func explainAgreesWithDecide() throws {
        let bot = try BotLoader.load(file: Bots.fixtures.appendingPathComponent("helpdesk.yaml").path, environment: [:])
        let engine = RuleEngine(bot: bot)
        for text in ["hello", "/help", "/ticket x", "/ticket", "URGENT", "thanks", "what?", "/hours@helpdesk"] {
            for now in ["2025-01-06T10:00:00Z", "2025-01-11T10:00:00Z"] {
                let context = Bots.context(bot, now: now)
                let fired = engine.decide(Bots.message(text), context: context).firings.map(\.rule.name)
                let explained = engine.explain(Bots.message(text), context: context).filter { $0.verdict == .fired }
                #expect(fired == explained.map(\.rule), "\(text) at \(now)")
            }
        }
    }
}
