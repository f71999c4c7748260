import Foundation
@testable import IMBots
import Testing

/// The literal test in front of each regex must never reject text the regex matches.
@Suite struct RegexAnalysisTests {
    @Test func requiredLiteralsAreFoundWhereTheyAreCertain() {
        #expect(RegexAnalysis("order #(?<id>[0-9]+)").requiredLiterals == ["order #"])
        #expect(RegexAnalysis("^(hi|hello)\\b").requiredLiterals == ["hi", "hello"])
        #expect(RegexAnalysis("colou?r").requiredLiterals == ["colo"])
        #expect(RegexAnalysis("ab+c").requiredLiterals == ["ab"])
        #expect(RegexAnalysis("x\\.y").requiredLiterals == ["x.y"])
        #expect(RegexAnalysis("(?:ticket|issue) (\\d+)").requiredLiterals == ["ticket", "issue"])
    }

    @Test func theAnalysisGivesUpOnWhatItCannotReadSafely() {
        #expect(RegexAnalysis("(?i)scam").requiredLiterals == nil)
        #expect(RegexAnalysis("a|.*").requiredLiterals == nil)
        #expect(RegexAnalysis("\\x41bc").requiredLiterals == nil)
        #expect(RegexAnalysis("\\Qa.b\\E").requiredLiterals == nil)
        #expect(RegexAnalysis("(ab)?c*").requiredLiterals == nil)
        #expect(RegexAnalysis("[abc]+").requiredLiterals == nil)
    }

    @Test func namedGroupsAreListedInOrder() {
        #expect(RegexAnalysis("(?<year>\\d{4})-(?<month>\\d\\d)(?=x)(?<!y)[(?<no>]").groupNames == ["year", "month"])
    }

    @Test func literalsNeverRuleOutAMatch() throws {
        let patterns = [
            "order #(?<id>[0-9]+)", "^(hi|hello)\\b", "colou?r", "ab+c", "x\\.y", "(?:ticket|issue) (\\d+)",
            "a{2,}b", "(foo|bar)baz", "[xyz]abc", "(?=foo)foobar", "\\bscam\\b", "(a|b)(c|d)e", "f(oo)+d",
            "^$", "a*b*c", "(?<n>abc)def?", "[[a-z]&&[^x]]yz", "x{0,2}yy",
        ]
        let texts = [
            "order #12", "hello there", "hi", "color", "colour", "abbbc", "ac", "x.y", "ticket 4", "issue 9",
            "aab", "barbaz", "zabc", "foobar", "scam", "bce", "foooood", "fooood", "", "abcd", "abcde", "yyy",
            "ayz", "xyz", "hellothere", "ORDER #1",
        ]
        for pattern in patterns {
            let regex = try NSRegularExpression(pattern: pattern)
            let literals = RegexAnalysis(pattern).requiredLiterals
            for text in texts {
                let matches = regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
                guard matches, let literals else { continue }
                #expect(literals.contains { text.contains($0) }, "'\(pattern)' matches '\(text)' but needs \(literals)")
            }
        }
    }
}

/// Case-insensitive regexes see through Unicode case folding; the literal test in front
/// of them must let those texts through.
@Suite struct RegexFoldingTests {
    @Test(arguments: [
        ("scam", "ſcam"), ("kelvin", "\u{212A}elvin"), ("fine", "ﬁne"), ("strasse", "STRAẞE"), ("strasse", "straße"),
        ("izmir", "İzmir"), ("cafe", "CAFE"),
    ])
    func aCaseInsensitiveRegexMatchesWhatICUFolds(_ pattern: String, _ text: String) throws {
        let regex = try NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
        let icu = regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
        let engine = try Bots.matches("{ text: { regex: '\(pattern)', ignore_case: true } }", text)
        #expect(engine == icu, "ICU says \(icu) for '\(pattern)' in '\(text)'")
    }
}

/// Patterns that can backtrack exponentially are refused when the bot loads, so a
/// message can never make the bot hang.
@Suite struct NestedRepetitionTests {
    @Test(arguments: ["(a+)+", "^(\\d+)*$", "(\\w+\\s?)*x", "(?:a|b+)+", "((ab)*c)*", "(x{2,})+"])
    func nestedUnboundedRepetitionIsRefused(_ pattern: String) {
        #expect(RegexAnalysis.hasNestedRepetition(pattern))
    }

    @Test(arguments: ["(ab)+", "(a+){2}", "a+b+", "(\\d+)?x", "[(+)]+", "\\(a+\\)+", "(a|b)*c", "(?:x{2})+"])
    func otherRepetitionIsAccepted(_ pattern: String) {
        #expect(!RegexAnalysis.hasNestedRepetition(pattern))
    }

    @Test func theLoaderReportsANestedRepetition() {
        #expect(Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: r, when: { text: { regex: '^(\\w+\\s?)*$' } }, do: [ { stop: true } ] }
            """) == [
                "bot.yaml:4:39: regex '^(\\w+\\s?)*$' repeats a group that itself repeats without bound "
                    + "(like '(a+)+'), which can take exponential time on some messages; rewrite it without "
                    + "the nested repetition",
            ])
    }
}
