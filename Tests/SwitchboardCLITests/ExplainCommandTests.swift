import Testing

@Suite("switchboard explain")
struct ExplainCommandTests {
    static let dryRunHeading =
        "dry run, nothing is sent: what the fired rules would do (http actions are not called; they get an empty 200 answer)"

    @Test func aMatchingRuleFiresAndItsRenderedReplyIsShown() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "runner: { bots: bots }\n")
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["explain", "--bot", "greeter", "--config", config,
                                        "--at", "2025-01-06T10:00:00Z", "hello", "there"])

        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        #expect(result.outputLines == [
            "bot 'greeter' (\(file)), message from someone in user:someone at 2025-01-06T10:00:00.000Z: \"hello there\"",
            "",
            "greet: fired — all conditions hold (matched = 'hello', match.1 = 'hello'); its stop ends evaluation",
            "fallback: suppressed — matches, but rule 'greet' stopped evaluation before it",
            "",
            Self.dryRunHeading,
            "  greet action 1: reply to user:someone: Hi someone!",
            "  greet: its stop ends evaluation; no later rule runs",
        ])
    }

    @Test func aRuleThatDoesNotMatchNamesTheConditionThatFailed() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["explain", "--file", file, "--from", "bob", "what?"])

        #expect(result.status == 0)
        #expect(result.outputLines.contains("greet: not matched — text does not match regex '^(hi|hello)\\b' (ignoring case)"))
        #expect(result.outputLines.contains("fallback: fired — all conditions hold"))
        #expect(result.outputLines.last == "  fallback action 1: reply to user:bob: Say hi, bob.")
    }

    @Test func inAGroupTheDirectOnlyRuleDoesNotMatchAndNothingIsDone() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["explain", "--file", file, "--in", "group:lobby", "what?"])

        #expect(result.status == 0)
        let fallback = try #require(result.outputLines.first { $0.hasPrefix("fallback: ") })
        #expect(fallback.hasPrefix("fallback: not matched — direct"))
        #expect(result.outputLines.last == "no rule fires: the bot would do nothing")
    }

    @Test func aConversationOutsideListenIsIgnoredByEveryRule() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["explain", "--file", file, "--in", "group:random", "hi"])

        #expect(result.status == 0)
        #expect(result.outputLines.contains("greet: ignored — group:random is not in the bot's listen list"))
        #expect(result.outputLines.contains("fallback: ignored — group:random is not in the bot's listen list"))
        #expect(result.outputLines.last == "no rule fires: the bot would do nothing")
    }

    @Test func theSendersRoleIsGivenWithRoleAndAnUnknownRoleIsRefused() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/keeper.yaml", """
            bot: keeper
            account: { username: keeper, password: keeper-password }
            listen: ["group:*"]
            rules:
              - name: admins
                when: { from: { role: admin } }
                do: [ { reply: "yes, boss" } ]
            """)

        let unknown = await sandbox.run(["explain", "--file", file, "--from", "bob", "--in", "group:team", "go"])
        #expect(unknown.outputLines.contains("admins: not matched — from: the role of 'bob' is not known, rule wants admin or higher"))
        let member = await sandbox.run(["explain", "--file", file, "--from", "bob", "--role", "member", "--in", "group:team", "go"])
        #expect(member.outputLines.contains("admins: not matched — from: 'bob' is member, rule wants admin or higher"))
        let owner = await sandbox.run(["explain", "--file", file, "--from", "bob", "--role", "owner", "--in", "group:team", "go"])
        #expect(owner.outputLines.contains("admins: fired — all conditions hold"))
        #expect(owner.outputLines.last == "  admins action 1: reply to group:team: yes, boss")
        let bad = await sandbox.run(["explain", "--file", file, "--role", "boss", "go"])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("--role 'boss' is not a role: use member, admin or owner"))
    }

    @Test func anUnknownBotExitsTwoWithTheBotsFoundAndASuggestion() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "runner: { bots: bots }\n")
        try sandbox.write("bots/greeter.yaml", BotTexts.greeter)
        try sandbox.write("bots/failing.yaml", BotTexts.failing)

        let result = await sandbox.run(["explain", "--bot", "greter", "--config", config, "hi"])

        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.errorLines == ["switchboard: no bot 'greter' (did you mean 'greeter'?); bots found: failing, greeter"])
    }

    @Test func aFileOfAnotherBotThanTheOneNamedIsAnError() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "runner: { bots: bots }\n")
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let named = await sandbox.run(["explain", "--config", config, "--file", file, "--bot", "greeter", "hi"])
        let other = await sandbox.run(["explain", "--file", file, "--bot", "helpdesk", "hi"])

        #expect(named.status == 0)
        #expect(other.status == 2)
        #expect(other.errorLines == ["switchboard: \(file) defines bot 'greeter', not 'helpdesk'"])
    }

    @Test func aBotFileWithProblemsIsReportedInsteadOfExplained() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/broken.yaml", BotTexts.broken)

        let result = await sandbox.run(["explain", "--file", file, "hi"])

        #expect(result.status == 2)
        #expect(result.errorLines.count == 5)
        #expect(result.errorLines.last == "switchboard: \(file) has problems; see 'switchboard check'")
    }

    @Test func aTextAfterDoubleDashIsTheMessageEvenWhenItLooksLikeAnOption() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["explain", "--file", file, "--", "--help", "me"])

        #expect(result.status == 0)
        #expect(result.outputLines.first?.hasSuffix(": \"--help me\"") == true)
        #expect(result.outputLines.last == "  fallback action 1: reply to user:someone: Say hi, someone.")
    }

    @Test func theActionsOfADryRuleAreMarked() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/dry.yaml", """
            bot: dry
            account: { username: dry, password: not-a-secret }
            rules:
              - name: echo
                mode: dry
                when: { command: echo }
                do: [ { reply: "{{args}}" }, { set: { last: "{{args}}" } } ]
            """)

        let result = await sandbox.run(["explain", "--file", file, "/echo", "one", "two"])

        #expect(result.status == 0)
        #expect(result.outputLines.contains(
            "echo: fired — all conditions hold (args = 'one two'); dry mode: its actions are logged, not performed"))
        #expect(result.outputLines.suffix(2) == [
            "  echo action 1: reply to user:someone (dry mode: not performed even when live): one two",
            "  echo action 2: set: last = one two (dry mode: not performed even when live)",
        ])
    }

    static let greeter = """
        bot: doorman
        account: { username: doorman, password: not-a-secret }
        listen: ["group:*"]
        rules:
          - name: welcome
            when: { event: member_joined, member: { is_bot: false, via: [open, invite] } }
            do: [ { send: "Welcome {{member.nickname}}! ({{sender.username}})" } ]
          - name: boss
            when: { event: member_joined, member: boss }
            do: [ { send: "Hello boss" } ]
          - name: chat
            when: { text: { contains: hi } }
            do: [ { reply: hi } ]
        """

    @Test func aMemberEventIsExplainedWithEventMemberAndVia() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/doorman.yaml", Self.greeter)

        let unknownWay = await sandbox.run(["explain", "--file", file, "--event", "member_joined", "--member", "dave",
                                            "--in", "group:team", "--at", "2025-01-06T10:00:00Z"])
        #expect(unknownWay.status == 0)
        #expect(unknownWay.outputLines == [
            "bot 'doorman' (\(file)), member_joined of dave in group:team at 2025-01-06T10:00:00.000Z",
            "",
            "welcome: not matched — member: how 'dave' joined is not known, rule wants open or invite",
            "boss: not matched — member: the member is 'dave', rule wants [boss]",
            "chat: not matched — event: event is member_joined, rule wants message, message_edited",
            "",
            "no rule fires: the bot would do nothing",
        ])

        let invited = await sandbox.run(["explain", "--file", file, "--event", "member_joined", "--member", "dave",
                                         "--via", "invite", "--in", "group:team"])
        #expect(invited.status == 0)
        #expect(invited.outputLines.first?.hasSuffix(" (via invite)") == true)
        #expect(invited.outputLines.contains("welcome: fired — all conditions hold"))
        #expect(invited.outputLines.last == "  welcome action 1: send to group:team: Welcome dave! (dave)")

        // Someone else acting on the member is the sender.
        let byAdmin = await sandbox.run(["explain", "--file", file, "--event", "member_joined", "--member", "dave",
                                         "--from", "alice", "--via", "approval", "--in", "group:team"])
        #expect(byAdmin.outputLines.first?.contains("member_joined of dave by alice in group:team") == true)
        #expect(byAdmin.outputLines.contains(
            "welcome: not matched — member: 'dave' joined via approval, rule wants open or invite"))
    }

    @Test func aMemberEventNeedsItsMemberAndNoText() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/doorman.yaml", Self.greeter)

        let noMember = await sandbox.run(["explain", "--file", file, "--event", "member_joined"])
        let text = await sandbox.run(["explain", "--file", file, "--event", "member_left", "--member", "dave", "bye"])
        let noEvent = await sandbox.run(["explain", "--file", file, "--member", "dave", "hi"])
        let typo = await sandbox.run(["explain", "--file", file, "--event", "member_joind", "--member", "dave"])

        #expect(noMember.errorLines.first == "switchboard: say who the member_joined event is about with --member USER")
        #expect(text.errorLines.first == "switchboard: a member_left event has no text: leave it out")
        #expect(noEvent.errorLines.first == "switchboard: --member and --via describe a member event: give --event too")
        #expect(typo.errorLines.first?.hasPrefix(
            "switchboard: --event 'member_joind' is not an event kind (did you mean 'member_joined'?): use message, ") == true)
        #expect([noMember, text, noEvent, typo].allSatisfy { $0.status == 2 })
    }

    @Test func withoutABotOrTextItIsAUsageError() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }

        let noBot = await sandbox.run(["explain", "hi"])
        let noText = await sandbox.run(["explain", "--bot", "greeter"])
        let badTime = await sandbox.run(["explain", "--bot", "greeter", "--at", "tomorrow", "hi"])

        #expect(noBot.status == 2)
        #expect(noBot.errorLines.first == "switchboard: say which bot with --bot NAME (or --file FILE)")
        #expect(noText.status == 2)
        #expect(noText.errorLines.first == "switchboard: give the message text after the options")
        #expect(badTime.status == 2)
        #expect(badTime.errorLines.first?.hasPrefix("switchboard: --at 'tomorrow' is not an RFC 3339 time") == true)
    }
}

@Suite("switchboard explain --state")
struct ExplainStateTests {
    static let moderator = """
        bot: mod
        account: { username: mod, password: secret-password }
        rules:
          - name: flood
            when: { group: lobby, rate: { per: sender, more_than: 5, within: 10s } }
            do: [ { mute: 5m } ]
          - name: spam
            when: { group: lobby, text: { any_word: [scam], normalize: true } }
            do: [ { strike: { counter: spam, escalate: [ warn, { mute: 10m }, { mute: 1d }, ban ] } } ]
          - name: links
            when: { group: lobby, links: 1 }
            do: [ { strike: { counter: links, decay: 1h } } ]
        """

    @Test func explainStartsFromTheStrikesTheBotKeptAndShowsTheRateCounter() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/mod.yaml", Self.moderator)
        // Two strikes of mallory, as the runner's journal holds them.
        _ = try sandbox.write("state/mod/journal.jsonl", """
            {"moderation":{"strike":{"count":{"key":"b:mod:7:spam:0","points":2,"since":1736157000000},"key":"spam\\/mallory"}},"seq":1}

            """)
        let result = await sandbox.run(["explain", "--file", file, "--state", sandbox.path("state"), "--from", "mallory",
                                        "--in", "group:lobby", "--at", "2025-01-06T10:00:00Z", "a sc4m"])
        #expect(result.status == 0)
        #expect(result.outputLines.contains(
            "flood: not matched — rate: 1 within 10s per sender 'mallory' (this one included), rule wants more than 5"))
        #expect(result.outputLines.contains("strikes of mallory on spam: 2 (they never fall off)"))
        #expect(result.outputLines.contains("strikes of mallory on links: 0 (one falls off per 1h without a new strike)"))
        #expect(result.outputLines.contains { $0.hasPrefix("  spam action 1: strike: spam strike 3 (step 3); mute mallory in group:lobby for 1d") })
    }
}
