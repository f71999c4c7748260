import Foundation
@testable import IMBots
import IMProtocol
import Testing

/// Edits are judged as messages are: a rule that reads what a message says (or counts
/// messages) considers `message_edited` too, unless it says `on_edit: false`; a command is
/// not run again by an edit.
@Suite struct EditModerationTests {
    func edited(_ text: String, from user: String = "mallory", in address: String = "group:lobby") -> BotEvent {
        Bots.message("hello", from: user, in: address).edited(to: text, position: 8)
    }

    @Test func aTextRuleJudgesAnEditAndACommandRuleDoesNot() throws {
        let bot = try Bots.withRules("""
              - name: banned
                when: { text: { any_word: [scam], normalize: true } }
                do: [ { delete: message } ]
              - name: links
                when: { links: 1 }
                do: [ { delete: message } ]
              - name: ticket
                when: { command: ticket }
                do: [ { reply: "noted" } ]
              - name: quiet
                on_edit: false
                when: { text: { contains: "free" } }
                do: [ { reply: "no" } ]
              - name: anything
                do: [ { reply: "seen" } ]
            """)
        let engine = RuleEngine(bot: bot)
        let context = Bots.context(bot)
        func fired(_ event: BotEvent) -> [String] { engine.decide(event, context: context).firings.map(\.rule.name) }
        #expect(fired(edited("a real SC4M")) == ["banned"])
        #expect(fired(edited("see https://x.example")) == ["links"])
        #expect(fired(edited("/ticket printer")).isEmpty)
        #expect(fired(edited("free stuff")).isEmpty, "on_edit: false")
        #expect(fired(Bots.message("free stuff", in: "group:lobby")) == ["quiet", "anything"])
        #expect(bot.rule(named: "banned")?.events == .only([.message, .messageEdited]))
        #expect(bot.rule(named: "ticket")?.events == .messages)
    }

    @Test func theBotsOwnEditsAreIgnored() throws {
        let bot = try Bots.withRules("""
              - { name: banned, when: { text: { contains: scam } }, do: [ { delete: message } ] }
            """)
        let event = edited("scam", from: "testbot")
        #expect(RuleEngine(bot: bot).decide(event, context: Bots.context(bot)).ignored == .ownEvent)
    }

    @Test func anExampleCanPostAMessageThenEditItAndRepeatTexts() async throws {
        let bot = try Bots.withRules("""
              - name: banned
                when: { group: lobby, text: { any_word: ["free money"], normalize: true } }
                do: [ { delete: message }, { strike: { counter: spam, escalate: [warn, { mute: 10m }] } } ]
                examples:
                  - { from: mallory, in: "group:lobby", text: "hello", edit: "FREE m0ney now", expect: { delete: 1, warn: 1 } }
                  - { from: mallory, in: "group:lobby", event: message_edited, text: "free money", expect: { delete: 1 } }
              - name: flood
                when: { group: lobby, rate: { per: sender, more_than: 3, within: 10s } }
                do: [ { mute: 1m } ]
                examples:
                  - { from: bob, in: "group:lobby", texts: [a, b, c, d], every: 1s, expect: { mute: 1 } }
                  - { from: bob, in: "group:lobby", text: "hi", edit: "hi!", times: 2, expect: { mute: 1 } }
              - name: copypasta
                when: { group: lobby, repeated: { times: 3, within: 10m } }
                do: [ { delete: message } ]
                examples:
                  - { from: carol, in: "group:lobby", texts: [one, two, three, four], every: 5s, expect: nothing }
            """, header: "moderation: { log: \"group:mods\" }")
        let results = await ExampleRunner.run(bot: bot)
        #expect(results.allSatisfy { $0.passed }, "\(results.map(\.description))")
        #expect(results.count == 5)
    }

    @Test func onEditIsForRulesThatTakeMessages() {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: joins, on_edit: true, when: { event: member_joined }, do: [ { stop: true } ] }
            """)
        #expect(errors == ["bot.yaml:4:29: on_edit applies to rules without 'event:'; list message_edited in "
                           + "'event:' instead"], "\(errors)")
    }
}
