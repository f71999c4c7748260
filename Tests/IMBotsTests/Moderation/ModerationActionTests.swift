import IMBots
import IMProtocol
import Templates
import Testing

/// The moderation actions, run by `ActionRunner` against `RecordingEffects`: what goes to
/// the server, the strikes and cases kept, and the mod-log lines.
@Suite struct ModerationActionTests {
    static let header = "moderation: { log: \"group:mods\" }"
    static let ladder = """
          - name: banned-words
            when: { group: lobby, text: { any_word: [scam, "free money"], normalize: true } }
            do:
              - delete: message
              - strike: { counter: spam, decay: 24h, escalate: [ warn, { mute: 10m }, { mute: 1d }, ban ] }
        """
    static let start = Timestamp(rfc3339: "2025-01-06T10:00:00Z")?.milliseconds ?? 0

    /// Decides and runs one event at `now` (ms).
    static func run(_ bot: BotDefinition, _ event: BotEvent, _ effects: RecordingEffects, at now: Int64 = start)
        async -> ActionReport
    {
        var context = BotContext(definition: bot, now: Timestamp(milliseconds: now))
        context.windows = nil
        let decision = RuleEngine(bot: bot).decide(event, context: context)
        return await ActionRunner.run(decision, event: event, context: context, effects: effects)
    }

    static func spam(_ position: Int64, from user: String = "mallory") -> BotEvent {
        Bots.message("get FREE m0ney now", from: user, in: "group:lobby", position: position)
    }

    static func summary(_ acts: [ModerationAct]) -> [String] { acts.map(\.description) }

    @Test func bannedWordsDeleteAndClimbTheStrikeLadder() async throws {
        let bot = try Bots.withRules(Self.ladder, header: Self.header)
        let effects = RecordingEffects()
        for position in 1...5 {
            let report = await Self.run(bot, Self.spam(Int64(position)), effects, at: Self.start + Int64(position) * 60_000)
            #expect(report.failures.isEmpty)
        }
        #expect(Self.summary(effects.acts) == [
            "delete message 1 in group:lobby",
            "delete message 2 in group:lobby", "mute mallory in group:lobby for 10m",
            "delete message 3 in group:lobby", "mute mallory in group:lobby for 1d",
            "delete message 4 in group:lobby", "ban mallory in group:lobby",
            "delete message 5 in group:lobby", "ban mallory in group:lobby",
        ])
        let warnings = effects.messages.filter { $0.action == .warn }
        #expect(warnings.map(\.text) == ["@mallory, please keep to the rules of this group: this is a warning (spam strike 1)."])
        #expect(warnings.first?.replyTo == MessageID(rawValue: 1))
        let log = effects.messages.filter { $0.to == .group("mods") }.map(\.text)
        #expect(log.count == 10)
        #expect(log[0] == "#1 delete @mallory in group:lobby, rule banned-words: \"get FREE m0ney now\"")
        #expect(log[1] == "#2 warn @mallory in group:lobby, rule banned-words (spam strike 1): \"get FREE m0ney now\"")
        #expect(log[3] == "#4 mute 10m @mallory in group:lobby, rule banned-words (spam strike 2): \"get FREE m0ney now\" (undo: /undo 4)")
        #expect(log[7] == "#8 ban @mallory in group:lobby, rule banned-words (spam strike 4): \"get FREE m0ney now\" (undo: /undo 8)")
        #expect(effects.moderation?.modCase(8)?.action == "ban")
    }

    @Test func strikesDecayOnePointPerPeriodWithoutANewStrike() async throws {
        let bot = try Bots.withRules(Self.ladder, header: Self.header)
        let effects = RecordingEffects()
        let hour: Int64 = 3_600_000
        // Three strikes in a row: warn, mute 10m, mute 1d.
        for position in 1...3 { _ = await Self.run(bot, Self.spam(Int64(position)), effects, at: Self.start + Int64(position)) }
        // A day and a bit later one point has fallen off: the next strike is the third again.
        _ = await Self.run(bot, Self.spam(4), effects, at: Self.start + 25 * hour)
        #expect(effects.acts.last?.description == "mute mallory in group:lobby for 1d")
        // Four quiet days later (three points gone, and more): back to zero, so a warning.
        _ = await Self.run(bot, Self.spam(5), effects, at: Self.start + 25 * hour + 4 * 24 * hour)
        #expect(effects.acts.last?.description == "delete message 5 in group:lobby")
        #expect(effects.messages.filter { $0.action == .warn }.count == 2)
    }

    @Test func theSameEventHandledAgainCountsOnce() async throws {
        let bot = try Bots.withRules(Self.ladder, header: Self.header)
        let effects = RecordingEffects()
        _ = await Self.run(bot, Self.spam(7), effects)
        _ = await Self.run(bot, Self.spam(7), effects)
        // A restart's second handling finds the strike and the cases it made.
        #expect(effects.messages.filter { $0.to == .group("mods") }.map(\.text).map { $0.prefix(3) } == ["#1 ", "#2 ", "#1 ", "#2 "])
        _ = await Self.run(bot, Self.spam(8), effects)
        #expect(effects.acts.last?.description == "mute mallory in group:lobby for 10m")
    }

    @Test(arguments: [RuleMode.dry, .shadow])
    func dryAndShadowRulesOnlyDescribe(_ mode: RuleMode) async throws {
        let bot = try Bots.withRules(Self.ladder.replacingOccurrences(
            of: "    when:", with: "    mode: \(mode.rawValue)\n    when:"), header: Self.header)
        let effects = RecordingEffects()
        for position in 1...2 {
            let report = await Self.run(bot, Self.spam(Int64(position)), effects)
            #expect(report.outcomes.allSatisfy { if case .dryRun = $0.status { true } else { false } })
            if position == 2, case .moderation(let strike)? = report.outcomes.last?.effect {
                // Nothing was counted, so the second is still the first strike.
                #expect(strike.strike?.points == 1)
                #expect(strike.cases.first?.line.hasPrefix("#0 [dry] warn @mallory") == true)
            }
        }
        #expect(effects.acts.isEmpty)
        #expect(effects.messages.isEmpty)
        #expect(effects.moderation?.modCase(1) == nil)
    }

    @Test func memberActionsActOnTheMemberOfMemberEvents() async throws {
        let bot = try Bots.withRules("""
              - { name: bye, when: { event: member_joined, group: lobby }, do: [ { kick: { reason: "closed today" } } ] }
              - { name: hush, when: { command: hush }, do: [ { mute: { user: "{{args}}", duration: 1h } } ] }
            """)
        let effects = RecordingEffects()
        _ = await Self.run(bot, ModerationMatcherTests.memberEvent(.memberJoined, "dave"), effects)
        _ = await Self.run(bot, Bots.message("/hush @erin", in: "group:lobby"), effects)
        let report = await Self.run(bot, Bots.message("/hush erin"), effects)
        #expect(Self.summary(effects.acts) == ["kick dave in group:lobby", "mute erin in group:lobby for 1h"])
        #expect(report.failures.map(\.code) == [.notApplicable])
        #expect(report.failures.first?.message == "mute needs a group: the event is not in one (give 'group')")
    }

    @Test func joinRequestsSettingsAndReports() async throws {
        let bot = try Bots.withRules("""
              - { name: door, when: { event: join_requested }, do: [ { approve: true } ] }
              - { name: raid, when: { command: raid }, do: [ { join_policy: approval }, { slow_mode: 30s }, { report: "raid mode on" } ] }
              - { name: calm, when: { command: calm }, do: [ { join_policy: { policy: open, group: lobby } }, { slow_mode: off } ] }
            """, header: Self.header)
        let effects = RecordingEffects()
        _ = await Self.run(bot, ModerationMatcherTests.memberEvent(.joinRequested, "dave"), effects)
        _ = await Self.run(bot, Bots.message("/raid", in: "group:lobby"), effects)
        _ = await Self.run(bot, Bots.message("/calm", in: "group:mods"), effects)
        #expect(Self.summary(effects.acts) == [
            "approve the join request of dave to group:lobby", "set join approval in group:lobby",
            "set slow mode 30s in group:lobby", "set join open in group:lobby", "set slow mode off in group:mods",
        ])
        let log = effects.messages.filter { $0.to == .group("mods") }.map(\.text)
        #expect(log.contains("#4 report @alice in group:lobby, rule raid: \"raid mode on\""))
        #expect(log.contains("#3 slow_mode 30s in group:lobby, rule raid"))
    }

    @Test func caseShowsALineAndUndoReversesAMute() async throws {
        let bot = try Bots.withRules(Self.ladder + """

              - { name: case, when: { command: case, group: mods }, do: [ { case: "{{args}}" } ] }
              - { name: undo, when: { command: undo, group: mods }, do: [ { undo: "{{args}}" } ] }
            """, header: Self.header)
        let effects = RecordingEffects()
        _ = await Self.run(bot, Self.spam(1), effects)
        _ = await Self.run(bot, Self.spam(2), effects)
        func ask(_ text: String, _ position: Int64) async -> String? {
            _ = await Self.run(bot, Bots.message(text, from: "olga", in: "group:mods", position: position), effects)
            return effects.messages.last { $0.to == .group("mods") && $0.action != .report }?.text
        }
        #expect(await ask("/case 4", 10) == "#4 mute 10m @mallory in group:lobby, rule banned-words (spam strike 2): \"get FREE m0ney now\" (undo: /undo 4)")
        #expect(await ask("/case #99", 11) == "No case #99 is kept.")
        #expect(await ask("/undo 1", 12) == "Case #1 cannot be undone: only mutes and bans can be undone.")
        #expect(await ask("/undo 4", 13) == "Undid #4: unmuted @mallory in group:lobby.")
        #expect(effects.acts.last?.description == "unmute mallory in group:lobby")
        #expect(effects.messages.contains { $0.text == "#5 undo #4 @mallory in group:lobby, by olga" })
        #expect(await ask("/undo 4", 14) == "Case #4 cannot be undone: it was undone by olga.")
        #expect(await ask("/case 4", 15)?.hasSuffix("(undone by olga)") == true)
    }

    @Test func verifyChallengesOpenJoinersAndLetsInvitedOnesPost() async throws {
        let bot = try Bots.withRules("""
              - name: verify
                when: { event: member_joined, group: lobby }
                do: [ { verify: { text: "Hi {{member.username}}! Answer 'purple' to post.", answer: Purple, within: 10m } } ]
            """)
        let effects = RecordingEffects()
        var joined = ModerationMatcherTests.memberEvent(.memberJoined, "dave")
        joined.event.via = .open
        _ = await Self.run(bot, joined, effects)
        #expect(effects.messages.map { "\($0.to) \($0.text)" } == ["user:dave Hi dave! Answer 'purple' to post."])
        #expect(effects.acts.isEmpty)
        var invited = ModerationMatcherTests.memberEvent(.memberJoined, "erin")
        invited.event.via = .invite
        invited.event.position = 10
        _ = await Self.run(bot, invited, effects)
        #expect(Self.summary(effects.acts) == ["unmute erin in group:lobby"])
        #expect(effects.messages.count == 1)
    }

    @Test func denyUnbanBanForAWhileAndAMuteUntilLifted() async throws {
        let bot = try Bots.withRules("""
              - { name: door, when: { event: join_requested }, do: [ { deny: true } ] }
              - { name: ban, when: { command: ban }, do: [ { ban: { user: "{{args}}", duration: 2d, reason: "spam" } } ] }
              - { name: unban, when: { command: unban }, do: [ { unban: { user: "{{args}}" } } ] }
              - { name: hush, when: { command: hush }, do: [ { mute: { user: "{{args}}", group: "group:ops" } } ] }
              - { name: approve-message, when: { command: approve }, do: [ { approve: true } ] }
            """)
        let effects = RecordingEffects()
        _ = await Self.run(bot, ModerationMatcherTests.memberEvent(.joinRequested, "dave"), effects)
        _ = await Self.run(bot, Bots.message("/ban erin", in: "group:lobby"), effects)
        _ = await Self.run(bot, Bots.message("/unban erin", in: "group:lobby"), effects)
        _ = await Self.run(bot, Bots.message("/hush frank", in: "group:lobby"), effects)
        let report = await Self.run(bot, Bots.message("/approve", in: "group:lobby"), effects)
        #expect(Self.summary(effects.acts) == [
            "deny the join request of dave to group:lobby", "ban erin in group:lobby for 2d", "unban erin in group:lobby",
            "mute frank in group:ops",
        ])
        #expect(effects.acts[1] == .member(.ban, group: "lobby", user: "erin", duration: ConfigDuration(seconds: 172_800),
                                           reason: "spam"))
        #expect(report.failures.map(\.message) == ["approve: the event is not a join request"])
    }

    @Test func badModerationActionsAreRefusedWithTheirPlace() {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: a, do: [ { kick: 10m } ] }
              - { name: b, do: [ { slow_mode: 2d } ] }
              - { name: c, do: [ { join_policy: secret } ] }
              - { name: d, do: [ { strike: { counter: spam, escalate: [ warn, shout ] } } ] }
              - { name: e, do: [ { delete: everything } ] }
            """)
        #expect(errors.contains { $0.contains(":4:") && $0.contains("'kick' takes no duration (only mute and ban do)") })
        #expect(errors.contains { $0.contains(":5:") && $0.contains("slow_mode is whole seconds from 1s to 1d, or off") })
        #expect(errors.contains { $0.contains(":6:") && $0.contains("join_policy is open, approval or invite, not 'secret'") })
        #expect(errors.contains { $0.contains(":7:") && $0.contains("unknown escalation step 'shout'") })
        #expect(errors.contains { $0.contains(":8:") && $0.contains("write 'delete: message'") })
    }
}
