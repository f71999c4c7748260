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

    @Test func literalsNeverRuleOutAMatch() throws {
        let patterns = [
            "order #(?<id>[0-9]+)", "^(hi|hello)\\b", "colou?r", "ab+c", "x\\.y", "(?:ticket|issue) (\\d+)",
            "a{2,}b", "(foo|bar)baz", "[xyz]abc", "(?=foo)foobar", "\\bscam\\b", "(a|b)(c|d)e", "f(oo)+d",
            "^$", "a*b*c", "(?<n>abc)def?", "[[a-z]&&[^x]]yz", "x{0,2}yy", "[[:alpha:]]bc", "[]x]yz",
        ]
        let texts = [
            "order #12", "hello there", "hi", "color", "colour", "abbbc", "ac", "x.y", "ticket 4", "issue 9",
            "aab", "barbaz", "zabc", "foobar", "scam", "bce", "foooood", "fooood", "", "abcd", "abcde", "yyy",
            "ayz", "xyz", "hellothere", "ORDER #1",
        ]
        for pattern in patterns {
            let regex = try PCRE2Pattern(pattern, caseless: false)
            let literals = RegexAnalysis(pattern).requiredLiterals
            for text in texts {
                guard case .match = regex.firstMatch(in: Array(text.utf8)), let literals else { continue }
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
    func aCaseInsensitiveRegexMatchesWhatTheRegexEngineFolds(_ pattern: String, _ text: String) throws {
        let regex = try PCRE2Pattern(pattern, caseless: true)
        guard case .match = regex.firstMatch(in: Array(text.utf8)) else {
            // What the engine does not fold, the rule must not match either.
            #expect(try !Bots.matches("{ text: { regex: '\(pattern)', ignore_case: true } }", text))
            return
        }
        #expect(try Bots.matches("{ text: { regex: '\(pattern)', ignore_case: true } }", text),
                "the engine folds '\(pattern)' onto '\(text)', the literal test must let it through")
    }
}

/// Patterns that can backtrack exponentially are refused when the bot loads, so a
/// message can never make the bot hang.
@Suite struct NestedRepetitionTests {
    @Test(arguments: ["(a+)+", "^(\\d+)*$", "(\\w+\\s?)*x", "(?:a|b+)+", "((ab)*c)*", "(x{2,})+"])
    func nestedUnboundedRepetitionIsRefused(_ pattern: String) {
        #expect(RegexHazards.find(in: pattern)?.hasPrefix("repeats a group that itself repeats without bound") == true)
    }

    @Test(arguments: ["(ab)+", "(a+){2}", "a+b+", "(\\d+)?x", "[(+)]+", "\\(a+\\)+", "(a|b)*c", "(?:x{2})+",
                      "(\\d{1,3}\\.){3}\\d{1,3}", "(?>a+)+b", "a++b", ".*\\d+", "(cat|dog)+", "[a-z]+[0-9]+",
                      "(?i)^(hi|hello)\\b", "\\w+@\\w+\\.com"])
    func otherRepetitionIsAccepted(_ pattern: String) {
        #expect(RegexHazards.find(in: pattern) == nil, "\(pattern): \(RegexHazards.find(in: pattern) ?? "")")
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

/// The guard's gaps of before: bounded repetitions of repetitions, overlapping
/// alternatives and runs of overlapping repetitions are refused by `check` with a reason.
@Suite struct RegexHazardTests {
    @Test(arguments: [
        ("(.*a){20}", "repeats 20 times a group that itself repeats without bound"),
        ("(a|aa)+$", "repeats a choice whose alternatives can start alike"),
        ("\\w*\\w*\\w*x", "repeats overlapping characters without bound three times in a row"),
        ("(x?){30}x{30}", "repeats a group of variable length 30 times"),
        ("(\\w|\\d)+", "repeats a choice whose alternatives can start alike"),
    ])
    func theLoaderRefusesTheShape(_ pattern: String, _ reason: String) {
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: r, when: { text: { regex: '\(pattern)' } }, do: [ { stop: true } ] }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("bot.yaml:4:39: regex '\(pattern)' \(reason)") == true, "\(errors)")
    }

    /// What gets past the check is still bounded: a match that would backtrack for ages
    /// stops at the match limit and counts as no match.
    @Test func aCatastrophicMatchStopsAtTheLimit() throws {
        let matcher = try RegexMatcher(pattern: "^(a+)+$", ignoreCase: false, checked: false)
        let before = RegexMatcher.limitHits
        var facts = EventFacts(event: Bots.message(String(repeating: "a", count: 40) + "!"),
                               context: Bots.context(try Bots.withRules("  - { name: r, do: [ { stop: true } ] }")))
        var bindings = Bindings()
        #expect(!matcher.matches(&facts, &bindings))
        #expect(RegexMatcher.limitHits == before + 1)
    }

    @Test func namedCapturesAreBound() throws {
        let matcher = try RegexMatcher(pattern: "order #(?<id>[0-9]+) (by|for) (?<who>\\w+)", ignoreCase: false)
        var facts = EventFacts(event: Bots.message("see order #42 for bob"),
                               context: Bots.context(try Bots.withRules("  - { name: r, do: [ { stop: true } ] }")))
        var bindings = Bindings()
        #expect(matcher.matches(&facts, &bindings))
        #expect(bindings.match["id"] == "42" && bindings.match["who"] == "bob" && bindings.matched == "order #42 for bob")
        #expect(bindings.match["2"] == "for")
    }
}
