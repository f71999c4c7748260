import Foundation
import IMBots
import Testing

/// The mistakes a newcomer makes get a sentence that points at the real mistake, each
/// against its input.
@Suite struct ErrorMessageTests {
    static let header = """
        bot: b
        account: { username: b, password: secret-password }
        rules:

        """

    /// The errors of a bot whose one rule matches `regex` (single-quoted, at 5:28).
    static func regexErrors(_ regex: String) -> [String] {
        Bots.errors(header + """
              - name: r
                when: { text: { regex: '\(regex)' } }
                do: [ { reply: "{{matched}}" } ]
            """)
    }

    @Test(arguments: [
        ("(?<name>abc", "invalid regex '(?<name>abc': a '(' at character 1 is never closed (add ')' where its group "
            + "ends, or write \\( to match a '(')"),
        ("order (?<id>[0-9]+", "invalid regex 'order (?<id>[0-9]+': a '(' at character 7 is never closed (add ')' "
            + "where its group ends, or write \\( to match a '(')"),
        ("a{2", "regex 'a{2': '{2' at character 2 is never closed with '}', so it is not a repetition but the text "
            + "'{2' itself: close it ('{2}'), or write \\{ to match a '{'"),
        ("\\d{3,1}", "invalid regex '\\d{3,1}': '{3,1}' asks for at least 3 and at most 1 repetitions: write the "
            + "smaller number first, {1,3}"),
        ("x{,3}", "regex 'x{,3}': '{,3}' at character 2 is not a repetition in PCRE2 but the text '{,3}' itself: "
            + "write {0,3} for 'at most 3'"),
        ("abc)", "invalid regex 'abc)': the ')' at character 4 has no '(' before it (write \\) to match a ')')"),
        ("*abc", "invalid regex '*abc': '*' at character 1 has nothing before it to repeat (write \\* to match a '*')"),
        ("[abc", "invalid regex '[abc': a character class '[' at character 1 is never closed with ']' "
            + "(write \\[ to match a '[')"),
        ("(?<my-id>x)", "invalid regex '(?<my-id>x)': a group name at character 6 is not usable: it has letters, "
            + "digits and '_' and starts with a letter, as in (?<order_id>...)"),
    ])
    func aRegexMistakeGetsASentence(_ regex: String, _ message: String) {
        #expect(Self.regexErrors(regex) == ["bot.yaml:5:28: \(message)"])
    }

    @Test(arguments: ["a\\{2", "[{]2", "\\Qa{2\\E", "a{2}", "a{2,}", "a{2,3}", "{{x}}"])
    func aBraceThatIsMeantLiterallyOrClosedIsFine(_ regex: String) {
        #expect(Self.regexErrors(regex).isEmpty, "\(regex)")
    }

    /// PCRE2 reads Python's `(?P<name>...)` as a named group too.
    @Test func aPythonStyleNamedGroupBindsLikeAnyOther() throws {
        let bot = try Bots.withRules("""
              - { name: r, when: { text: { regex: 'order (?P<id>[0-9]+)' } }, do: [ { reply: "#{{match.id}}" } ] }
            """)
        #expect(Bots.fired(bot, Bots.message("order 42")) == ["r"])
    }

    @Test func aRegexInDoubleQuotesIsToldToUseSingleQuotes() {
        #expect(Bots.errors(Self.header + """
              - { name: r, when: { text: { regex: "^\\w+$" } }, do: [ { reply: hi } ] }
            """) == [
                "bot.yaml:4:41: in double quotes YAML reads '\\w' as an escape, and it is none: use single quotes "
                    + "for regexes (regex: '...'), where a backslash stays as it is",
            ])
        // `\b` is an escape YAML knows (a backspace): the regex would never see its word boundary.
        #expect(Bots.errors(Self.header + """
              - { name: r, when: { text: { regex: "^(hi|hello)\\b" } }, do: [ { reply: hi } ] }
            """) == [
                "bot.yaml:4:39: use single quotes for regexes: in double quotes YAML reads '\\b' itself (as a control "
                    + "character) before the regex sees it; write regex: '^(hi|hello)\\b'",
            ])
        // Escaped for YAML, the regex is what it should be.
        #expect(Bots.errors(Self.header + """
              - { name: r, when: { text: { regex: "^\\\\w+\\\\b" } }, do: [ { reply: hi } ] }
            """).isEmpty)
    }

    @Test(arguments: [
        ("Hi {{sender.nickname}!", "bot.yaml:6:20: invalid template: the tag '{{sender.nickname}' is closed with "
            + "one '}': write '{{sender.nickname}}'"),
        ("Hi {{sender.nickname} and {{message.text}}", "bot.yaml:6:20: invalid template: the tag "
            + "'{{sender.nickname}' is closed with one '}': write '{{sender.nickname}}'"),
        ("Hi {sender.nickname}}!", "bot.yaml:6:20: invalid template: the tag '{sender.nickname}}' is opened with one "
            + "'{': write '{{sender.nickname}}'"),
    ])
    func aTemplateTagWithABraceTooFewSaysSo(_ template: String, _ message: String) {
        #expect(Bots.errors(Self.header + """
              - name: r
                do:
                  - reply: "\(template)"
            """) == [message])
    }

    @Test func rulesAreNamedAndActionsCountedFromOneInEveryMessage() {
        #expect(Bots.errors(Self.header + """
              - { name: greet, when: { direct: yes }, do: [ { reply: hi } ] }
              - when: { direct: true }
                do: [ { reply: { text: hi, quote: maybe } } ]
                examples: [ { from: a, text: hi, expect: { reply: [1, { x: 2 }] } } ]
            """) == [
                "bot.yaml:4:36: expected true or false for 'when.direct' of rule 'greet', found \"yes\"",
                "bot.yaml:5:5: missing required key 'name' in rule 2",
                "bot.yaml:6:39: expected true or false for 'reply.quote' of action 1 in rule 2, found \"maybe\"",
                "bot.yaml:7:59: expected a string for 'expect.reply[1]' of example 1 in rule 2, found a mapping",
            ])
        #expect(Bots.errors(Self.header + """
              - { name: a, do: [] }
              - { do: [] }
            """) == [
                "bot.yaml:4:20: rule 'a' needs at least one action in 'do'",
                "bot.yaml:5:5: missing required key 'name' in rule 2",
                "bot.yaml:5:11: rule 2 needs at least one action in 'do'",
            ])
    }

    @Test func filePathsAreShownWithoutDotSegments() throws {
        let folder = URL(fileURLWithPath: Bots.directory).appendingPathComponent("dots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "bot: b\naccount: { username: b, password: short }\n"
            .write(to: folder.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        do {
            _ = try BotLoader.load(file: folder.path + "/./b.yaml", environment: [:])
            Issue.record("the short password should be refused")
        } catch {
            #expect(error.errors.map(\.file) == [folder.path + "/b.yaml"])
        }
        #expect(BotLoader.displayPath("./bots/helpdesk.yaml") == "bots/helpdesk.yaml")
        #expect(BotLoader.displayPath("bots/./helpdesk.yaml") == "bots/helpdesk.yaml")
        #expect(BotLoader.displayPath("./helpdesk.yaml") == "helpdesk.yaml")
        #expect(BotLoader.displayPath("/srv/./bots//x.yaml") == "/srv/bots/x.yaml")
    }
}
