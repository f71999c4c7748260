import IMBots
import Testing

/// `switchboard test`: examples pass when the bot does what they say, and fail with a
/// message that shows the difference and where the example is.
@Suite struct ExampleRunnerTests {
    func results(_ rules: String, header: String = "") async throws -> [String] {
        let bot = try Bots.withRules(rules, header: header)
        return await ExampleRunner.run(bot: bot).map(\.description)
    }

    @Test func aMatchingReplyPassesAndADifferentOneFailsWithTheDifference() async throws {
        #expect(try await results("""
              - name: greet
                when: { text: { regex: '^hi' } }
                do: [ { reply: "Hi {{sender.nickname}}!" } ]
                examples:
                  - { from: alice, text: hi, expect: { reply: "Hi alice!" } }
                  - { from: alice, text: hi, expect: { reply: "Hi Alice!" } }
                  - { from: alice, text: bye, expect: { reply: "Hi alice!" } }
                  - { from: alice, text: bye, expect: nothing }
                  - { from: alice, text: hi, expect: nothing }
            """) == [
                "bot.yaml:9:9: rule 'greet' example 1: passed",
                "bot.yaml:10:9: rule 'greet' example 2: failed: expected reply \"Hi Alice!\", got \"Hi alice!\" "
                    + "(first difference at character 4)",
                "bot.yaml:11:9: rule 'greet' example 3: failed: expected reply \"Hi alice!\", but there was no reply "
                    + "(rules fired: none)",
                "bot.yaml:12:9: rule 'greet' example 4: passed",
                "bot.yaml:13:9: rule 'greet' example 5: failed: expected nothing, but the bot would: reply \"Hi alice!\" "
                    + "(rules fired: greet)",
            ])
    }

    @Test func theWholeRuleSetRunsSoAnEarlierStopCounts() async throws {
        #expect(try await results("""
              - { name: catch-all, when: { from: mallory }, do: [ { stop: true } ] }
              - name: greet
                do: [ { reply: hello } ]
                examples:
                  - { from: alice, text: hi, expect: { reply: hello } }
                  - { from: mallory, text: hi, expect: { reply: hello } }
            """) == [
                "bot.yaml:9:9: rule 'greet' example 1: passed",
                "bot.yaml:10:9: rule 'greet' example 2: failed: expected reply \"hello\", but there was no reply "
                    + "(rules fired: catch-all)",
            ])
    }

    @Test func sendForwardStateAndRuleExpectationsAreChecked() async throws {
        let lines = try await results("""
              - name: escalate
                when: { text: { contains: help } }
                do:
                  - forward: { to: group:oncall }
                  - send: { to: group:log, text: "{{sender.username}} asked" }
                  - increment: asks
                examples:
                  - from: bob
                    text: help me
                    expect:
                      forward: { to: group:oncall }
                      send: { to: group:log, text: bob asked }
                      state: { asks: 3 }
                      rule: escalate
                    state: { asks: 2 }
                  - from: bob
                    text: help me
                    expect: { forward: group:ops, state: { asks: 5 }, rule: [escalate, other] }
              - { name: other, when: { from: nobody }, do: [ { stop: true } ] }
            """)
        #expect(lines.first == "bot.yaml:12:9: rule 'escalate' example 1: passed")
        #expect(lines.last == "bot.yaml:20:9: rule 'escalate' example 2: failed: expected forward [to group:ops], got "
                + "[to group:oncall \"bob in user:bob: help me\"]; expected state asks = 5, got 1; "
                + "expected rule 'other' to fire (rules fired: escalate)")
    }

    @Test func anActionsListComparesEveryEffectInOrder() async throws {
        #expect(try await results("""
              - name: two
                do: [ { reply: one }, { send: { to: group:x, text: two } } ]
                examples:
                  - { from: a, text: x, expect: { actions: [ { reply: one }, { send: { to: group:x, text: two } } ] } }
                  - { from: a, text: x, expect: { actions: [ { send: { to: group:x, text: two } }, { reply: one } ] } }
            """) == [
                "bot.yaml:8:9: rule 'two' example 1: passed",
                "bot.yaml:9:9: rule 'two' example 2: failed: expected actions [send to group:x \"two\", reply \"one\"], "
                    + "got [reply \"one\", send to group:x \"two\"] (rules fired: two)",
            ])
    }

    @Test func scriptedHTTPResponsesFeedTheRulesTemplates() async throws {
        #expect(try await results("""
              - name: lookup
                do:
                  - http: { url: "https://api.example.com/{{message.text}}", as: found }
                  - reply: "{{found.body.name}} ({{found.status}})"
                examples:
                  - { from: a, text: "7", http: { found: { body: { name: Ada } } }, expect: { reply: Ada (200) } }
                  - { from: a, text: "7", http: { found: { status: 404 } }, expect: { reply: "?" } }
            """) == [
                "bot.yaml:10:9: rule 'lookup' example 1: passed",
                "bot.yaml:11:9: rule 'lookup' example 2: failed: rule 'lookup' action 1 failed: HTTP 404 from GET "
                    + "https://api.example.com/7, expected 2xx; expected reply \"?\", but there was no reply "
                    + "(rules fired: lookup)",
            ])
    }

    @Test func memberEventsAndTheClockCanBeDescribed() async throws {
        #expect(try await results("""
              - name: welcome
                when: { event: member_joined, group: lobby, hours: "08:00-20:00" }
                do: [ { send: "Welcome {{member.nickname}} ({{now.time}})" } ]
                examples:
                  - { event: member_joined, member: { username: dave, nickname: Dave }, in: group:lobby,
                      now: "2025-03-01T09:15:00Z", expect: { send: "Welcome Dave (09:15)" } }
                  - { event: member_joined, member: dave, in: group:lobby, now: "2025-03-01T22:00:00Z", expect: nothing }
            """) == [
                "bot.yaml:9:9: rule 'welcome' example 1: passed",
                "bot.yaml:11:9: rule 'welcome' example 2: passed",
            ])
    }

    @Test func anExampleSendersGroupRoleIsGivenWithRole() async throws {
        #expect(try await results("""
              - name: admins
                when: { group: team, from: { role: admin } }
                do: [ { reply: "yes, boss" } ]
                examples:
                  - { from: { username: alice, role: owner }, in: group:team, text: go, expect: { reply: "yes, boss" } }
                  - { from: { username: bob, role: member }, in: group:team, text: go, expect: nothing }
                  - { from: carol, in: group:team, text: go, expect: nothing }
            """) == [
                "bot.yaml:9:9: rule 'admins' example 1: passed",
                "bot.yaml:10:9: rule 'admins' example 2: passed",
                "bot.yaml:11:9: rule 'admins' example 3: passed",
            ])
    }

    @Test func dryRulesAreCheckedByWhatTheyWouldDo() async throws {
        #expect(try await results("""
              - name: flood
                mode: dry
                do: [ { reply: "slow down" } ]
                examples:
                  - { from: a, text: x, expect: { reply: "slow down" } }
            """) == ["bot.yaml:9:9: rule 'flood' example 1: passed"])
    }

    @Test func anExampleMessageNeedsASenderAndText() {
        #expect(Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - name: r
                do: [ { reply: x } ]
                examples:
                  - { text: hi, expect: nothing }
                  - { from: a, expect: { reply: x } }
                  - { from: a, text: x, expect: maybe }
            """) == [
                "bot.yaml:7:9: an example message needs 'from' (who sends it)",
                "bot.yaml:8:9: an example message needs 'text'",
                "bot.yaml:9:37: expect is 'nothing' or a mapping with reply, send, forward, update_profile, state, "
                    + "rule or actions; found 'maybe'",
            ])
    }

    @Test func howAMemberJoinedIsSaidOnTheMemberOnly() {
        #expect(Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - name: r
                when: { event: member_joined }
                do: [ { reply: x } ]
                examples:
                  - { event: member_joined, member: dave, via: invite, expect: { reply: x } }
            """) == ["bot.yaml:8:52: 'via' belongs to the member: write member: { username: NAME, via: invite }"])
    }
}

@Suite struct ExampleModeTests {
    @Test func aShadowRulesHTTPResultIsScriptedInItsExamples() async throws {
        let bot = try Bots.withRules("""
              - name: lookup
                mode: shadow
                do:
                  - http: { url: "https://api.example.com/x", as: found }
                  - reply: "found {{found.body.name}}"
                examples:
                  - { from: a, text: x, http: { found: { body: { name: Ada } } }, expect: { reply: found Ada } }
            """)
        #expect(await ExampleRunner.run(bot: bot).map(\.passed) == [true])
    }
}
