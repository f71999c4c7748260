import Foundation
import IMBots
import Testing

/// Bot-file problems are reported with a message a person can act on and the exact
/// file:line:column of the offending text.
@Suite struct ConfigErrorTests {
    let header = """
        bot: b
        account: { username: b, password: secret-password }

        """

    @Test func anUnknownKeyIsReportedWithASuggestion() {
        #expect(Bots.errors(header + """
            limts: { total: 1/s }
            rules:
              - name: r
                whne: { direct: true }
                do: [ { repyl: hi } ]
            """) == [
                "bot.yaml:3:1: unknown key 'limts' (did you mean 'limits'?)",
                "bot.yaml:6:5: unknown key 'whne' (did you mean 'when'?)",
                "bot.yaml:7:13: unknown key 'repyl' (did you mean 'reply'?)",
            ])
    }

    @Test func aValueOfTheWrongTypeNamesThePathAndWhatWasFound() {
        #expect(Bots.errors(header + """
            loop_guard: { max_replies_per_minute: lots }
            rules:
              - { name: r, when: { direct: yes }, do: [ { reply: hi } ] }
            """) == [
                "bot.yaml:3:39: expected an integer for 'loop_guard.max_replies_per_minute', found \"lots\"",
                "bot.yaml:5:32: expected true or false for 'when.direct' of rule 'r', found \"yes\"",
            ])
    }

    @Test func aBadRoleIsOneErrorAndAnEmptyFromAnother() {
        #expect(Bots.errors(header + """
            rules:
              - { name: r, when: { from: { role: boss } }, do: [ { reply: hi } ] }
              - { name: s, when: { from: {} }, do: [ { reply: hi } ] }
            """) == [
                "bot.yaml:4:38: expected one of 'member', 'admin', 'owner' for 'when.from.role' of rule 'r', found \"boss\"",
                "bot.yaml:5:30: 'from' needs one of: users, bots, role, joined_within",
            ])
    }

    @Test func aBadRegexPointsAtThePattern() throws {
        let text = header + """
            rules:
              - name: r
                when: { text: { regex: '^(hi|hello\\b' } }
                do: [ { reply: hi } ]
            """
        #expect(Bots.errors(text) == ["bot.yaml:5:28: invalid regex '^(hi|hello\\b': a '(' at character 2 is never closed "
                                  + "(add ')' where its group ends, or write \\( to match a '(')"])
        do {
            _ = try Bots.load(text)
        } catch {
            #expect(error.errors.map(\.code) == [.invalidRegex])
            #expect(error.errors.first?.line == 5)
            #expect(error.errors.first?.column == 28)
        }
    }

    @Test func anUnclosedSectionPointsAtTheTagInsideTheScalar() {
        #expect(Bots.errors(header + """
            rules:
              - name: r
                do:
                  - reply: "Hi {{#sender}}{{nickname}}"
                  - send: Hello {{name
            """) == [
                "bot.yaml:6:20: invalid template: unclosed section 'sender'",
                "bot.yaml:7:21: invalid template: unclosed tag '{{': no '}}' before the end of the template",
            ])
    }

    @Test func aTemplateErrorInALiteralBlockPointsAtItsLine() {
        #expect(Bots.errors(header + """
            rules:
              - name: r
                do:
                  - reply: |
                      Hello {{sender.nickname}},
                        {{/tickets}}
            """) == ["bot.yaml:8:13: invalid template: section end 'tickets' has no matching section start"])
    }

    @Test func aTemplateErrorInAFoldedBlockPointsAtTheScalar() {
        #expect(Bots.errors(header + """
            rules:
              - name: r
                do:
                  - reply: >
                      Hello
                      {{#x}}
            """) == ["bot.yaml:6:16: invalid template: unclosed section 'x'"])
    }

    @Test func anUnknownTemplateVariableIsReportedAtItsTagWithASuggestion() {
        let errors = Bots.errors(header + """
            rules:
              - name: r
                do:
                  - reply: "Hi {{sendr.nickname}}, {{now}}"
            """)
        #expect(errors.count == 2)
        #expect(errors.first == "bot.yaml:6:20: unknown template variable 'sendr.nickname' (did you mean 'sender'?) "
                + "(known: bot, conversation, event, message, now, sender, state)")
        #expect(errors.last == "bot.yaml:6:40: '{{now}}' renders nothing: it is an object; name one of its fields, "
                + "e.g. '{{now.rfc3339}}'")
    }

    @Test func aMissingEnvironmentVariableIsReportedAtTheScalar() {
        #expect(Bots.errors("""
            bot: helpdesk
            account:
              username: helpdesk
              password: ${HELPDESK_PASSWORD}
            """) == [
                "bot.yaml:4:13: environment variable 'HELPDESK_PASSWORD' is not set "
                    + "(set it, or write ${HELPDESK_PASSWORD:-default})",
            ])
        #expect(Bots.errors("""
            bot: helpdesk
            account: { username: helpdesk, password: "${HELPDESK_PASSWORD}" }
            """, environment: ["HELPDESK_PASSWORD": "from-the-environment"]).isEmpty)
    }

    @Test func severalProblemsInOneFileAreAllReportedInOrder() {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: "${HELPDESK_PASSWORD}" }
            limits: { per_conversation: 1/fortnight }
            rules:
              - name: greet
                when: { direct: yes, text: { regex: "(hi" } }
                do:
                  - repyl: hi
                  - reply: "{{#sender}}"
                  - reply: "{{sendr}}"
              - name: r2
                mode: enforced
                when: { event: member_joind }
                do: [ { reply: hi } ]
            """)
        #expect(errors.map { $0.split(separator: " ").first ?? "" } == [
            "bot.yaml:2:35:", "bot.yaml:3:29:", "bot.yaml:6:21:", "bot.yaml:6:41:", "bot.yaml:8:9:",
            "bot.yaml:9:17:", "bot.yaml:10:17:", "bot.yaml:12:11:", "bot.yaml:13:20:",
        ])
        #expect(errors[4] == "bot.yaml:8:9: unknown key 'repyl' (did you mean 'reply'?)")
        #expect(errors[8].hasPrefix("bot.yaml:13:20: unknown event 'member_joind' (did you mean 'member_joined'?)"))
    }

    @Test func crossReferencesAreCheckedOnceTheFileDecodes() {
        #expect(Bots.errors(header + """
            profile: { avatar: assets/missing.png }
            rules:
              - name: greet
                do: [ { reply: hi } ]
                examples:
                  - { from: a, text: hi, expect: { rule: gret } }
                  - { from: a, text: hi, http: { creatd: { status: 200 } }, expect: nothing }
              - name: greet
                do: [ { http: { url: "https://x.example", as: created } } ]
            """) == [
                "bot.yaml:3:20: avatar file 'assets/missing.png' not found (looked for "
                    + URL(fileURLWithPath: Bots.directory).appendingPathComponent("assets/missing.png").path + ")",
                "bot.yaml:8:46: example expects rule 'gret', which this bot does not have (did you mean 'greet'?)",
                "bot.yaml:9:38: example scripts an http response for 'creatd', but no http action has "
                    + "'as: creatd' (did you mean 'created'?)",
                "bot.yaml:10:5: duplicate rule name 'greet' (first defined at 5:5)",
            ])
    }

    @Test func aWebhookRulesExampleSendsAPayload() throws {
        let text = header + """
            webhooks: [ { path: /hooks/x, format: json, secret: s } ]
            rules:
              - name: r
                when: { webhook: /hooks/x }
                do: [ { send: { to: "group:ops", text: "hi" } } ]
                examples:
                  - { text: "x", from: alice, expect: nothing }
            """
        #expect(Bots.errors(text) == [
            "bot.yaml:9:9: a webhook rule's example sends a notification: give payload (the body, inline) or "
                + "payload_file (a file next to the bot file) with expect, or notifications",
        ])
    }

    @Test func badRatesDurationsAndSpansExplainTheExpectedForm() {
        #expect(Bots.errors(header + """
            limits: { per_conversation: 1/fortnight, total: 0/s }
            on_start: { backlog: skip, within: 10m }
            rules:
              - { name: r, when: { hours: "9-17", days: [mon, fri] }, do: [ { stop: true } ] }
            """) == [
                "bot.yaml:3:29: '1/fortnight' is not a rate (write COUNT/UNIT, e.g. 1/s, 20/min, 100/h, or 5/10s)",
                "bot.yaml:3:49: '0/s' is not a rate (write COUNT/UNIT, e.g. 1/s, 20/min, 100/h, or 5/10s)",
                "bot.yaml:4:36: 'within' only applies to 'backlog: newer_than'",
                "bot.yaml:6:31: '9-17' is not a span of hours (write HH:MM-HH:MM, e.g. 09:00-17:00)",
            ])
    }

    @Test func anUnknownTimeZoneGetsASuggestion() {
        #expect(Bots.errors(header + "timezone: Europe/Berln\n") == [
            "bot.yaml:3:11: unknown time zone 'Europe/Berln' (did you mean 'Europe/Berlin'?) "
                + "(write an IANA name such as Europe/Berlin)",
        ])
    }

    @Test func anActionWithTwoKeysAsksForOneDashEach() {
        #expect(Bots.errors(header + """
            rules:
              - name: r
                do:
                  - reply: hi
                    send: there
            """) == ["bot.yaml:6:9: an action has exactly one key, found reply, send (start each action with its own '-')"])
    }

    @Test func anHTTPNameMayNotShadowABuiltInVariable() {
        #expect(Bots.errors(header + """
            rules:
              - { name: r, do: [ { http: { url: "https://x.example", as: state } } ] }
            """) == ["bot.yaml:4:62: 'state' is a built-in template variable; choose another name"])
    }

    @Test func anUnreadableFileIsAnError() {
        #expect(throws: BotConfigErrors.self) {
            try BotLoader.load(file: "/nonexistent/bot.yaml", environment: [:])
        }
    }
}
