@testable import IMBots
import IMProtocol
import Testing

/// The `notice` action in `check`, `test` and `explain`, offline.
@Suite struct NoticeExampleTests {
    @Test func examplesExpectNoticesAndAReplyIsNotOne() async throws {
        let bot = try Bots.withRules("""
              - name: rules
                when: { group: team, text: { starts_with: "!rules" } }
                do: [ { notice: "{{sender.nickname}}, please be kind" } ]
                examples:
                  - { from: alice, in: "group:team", text: "!rules", expect: { notice: "alice, please be kind" } }
                  - { from: alice, in: "group:team", text: "!rules", expect: { reply: "alice, please be kind" } }
                  - { from: alice, in: "group:team", text: "!rules", expect: { actions: [ { notice: "alice, please be kind" } ] } }
                  - { from: alice, in: "group:team", text: "!rules", expect: nothing }
            """)
        #expect(await ExampleRunner.run(bot: bot).map(\.description) == [
            "bot.yaml:9:9: rule 'rules' example 1: passed",
            "bot.yaml:10:9: rule 'rules' example 2: failed: expected reply \"alice, please be kind\", but there was no "
                + "reply (rules fired: rules)",
            "bot.yaml:11:9: rule 'rules' example 3: passed",
            "bot.yaml:12:9: rule 'rules' example 4: failed: expected nothing, but the bot would: notice to group:team "
                + "\"alice, please be kind\" (rules fired: rules)",
        ])
    }

    @Test func aNoticeIsAFeedActionWhoseTemplatesAreChecked() {
        let found = Bots.errors("""
            bot: alerts
            account: { username: alerts, password: secret-password }
            webhooks:
              - { path: /hooks/build, format: json, secret: b-t0ken }
            rules:
              - name: hook
                when: { webhook: /hooks/build }
                do: [ { notice: "built" } ]
              - name: typo
                when: { direct: true }
                do: [ { notice: "{{sender.nick}}" } ]
            """)
        #expect(found.contains { $0.contains("'notice' cannot run for a webhook") }, "\(found)")
        #expect(found.contains { $0.contains("unknown template variable 'sender.nick'") }, "\(found)")
    }

    @Test func aDryNoticeIsDescribedAndNotPerformed() async throws {
        let bot = try Bots.withRules("""
              - { name: rules, mode: dry, when: { text: "!rules" }, do: [ { notice: "be kind" } ] }
            """)
        let event = Bots.message("!rules", in: "group:team")
        let context = Bots.context(bot)
        let decision = RuleEngine(bot: bot).decide(event, context: context)
        let report = await ActionRunner.run(decision, event: event, context: context, effects: RecordingEffects())
        #expect(report.outcomes.map(\.kind) == [.notice])
        guard case .dryRun(.message(let message, let sent))? = report.outcomes.first?.status else {
            Issue.record("not a dry run: \(report.outcomes)")
            return
        }
        #expect(message.action == .notice && message.text == "be kind" && sent == nil)
        #expect(message.notice?.user == event.event.message?.senderID)
    }
}
