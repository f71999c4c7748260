import IMBots
import IMProtocol
import Testing

@Suite struct TextMatcherTests {
    @Test func aPlainStringMatchesTheWholeTextExactly() throws {
        #expect(try Bots.matches("{ text: hello }", "hello"))
        #expect(try !Bots.matches("{ text: hello }", "hello there"))
        #expect(try !Bots.matches("{ text: hello }", "Hello"))
    }

    @Test func equalsContainsStartsWithAndEndsWith() throws {
        #expect(try Bots.matches("{ text: { equals: [hi, hello] } }", "hello"))
        #expect(try Bots.matches("{ text: { contains: printer } }", "the printer is on fire"))
        #expect(try !Bots.matches("{ text: { contains: printer } }", "the Printer is on fire"))
        #expect(try Bots.matches("{ text: { starts_with: 'please ' } }", "please help"))
        #expect(try !Bots.matches("{ text: { starts_with: 'please ' } }", "help please "))
        #expect(try Bots.matches("{ text: { ends_with: '?' } }", "is anyone there?"))
        #expect(try !Bots.matches("{ text: { ends_with: '?' } }", "?!"))
    }

    @Test func allTestsOfOneTextMatcherMustHold() throws {
        let when = "{ text: { starts_with: '/', contains: urgent } }"
        #expect(try Bots.matches(when, "/ticket urgent"))
        #expect(try !Bots.matches(when, "/ticket later"))
    }

    @Test func ignoreCaseFoldsBothSidesIncludingNonASCII() throws {
        #expect(try Bots.matches("{ text: { equals: HELLO, ignore_case: true } }", "hello"))
        #expect(try Bots.matches("{ text: { contains: STRASSE, ignore_case: true } }", "die strasse"))
        #expect(try Bots.matches("{ text: { contains: ÉTÉ, ignore_case: true } }", "un bel été"))
    }

    @Test func aRegexBindsNumberedAndNamedCaptures() throws {
        let bot = try Bots.withRules("""
              - name: order
                when: { text: { regex: 'order #(?<id>[0-9]+) (by|for) (\\w+)' } }
                do: [ { reply: "{{match.id}} {{match.3}}" } ]
            """)
        let decision = RuleEngine(bot: bot).decide(Bots.message("where is order #123 for bob?"),
                                                   context: Bots.context(bot))
        let bindings = try #require(decision.firings.first?.bindings)
        #expect(bindings.matched == "order #123 for bob")
        #expect(bindings.match == ["1": "123", "2": "for", "3": "bob", "id": "123"])
    }

    @Test func aRegexWithIgnoreCaseMatchesAnyCase() throws {
        #expect(try Bots.matches("{ text: { regex: '^(hi|hello)\\b', ignore_case: true } }", "HELLO there"))
        #expect(try !Bots.matches("{ text: { regex: '^(hi|hello)\\b' } }", "HELLO there"))
        #expect(try !Bots.matches("{ text: { regex: '^(hi|hello)\\b', ignore_case: true } }", "hellothere"))
    }

    @Test func aRegexStillMatchesWhenTheLiteralTestCannotDecide() throws {
        // `ſ` (long s) matches `s` case-insensitively in ICU; the cheap literal test must
        // not rule it out.
        #expect(try Bots.matches("{ text: { regex: 'scam', ignore_case: true } }", "ſcam"))
        #expect(try Bots.matches("{ text: { regex: 'colou?r' } }", "what color?"))
        #expect(try Bots.matches("{ text: { regex: 'ab+c' } }", "abbbc"))
    }

    @Test func textMatchersDoNotMatchEventsWithoutText() throws {
        let bot = try Bots.withRules("  - { name: r, when: { event: member_joined, text: { contains: a } }, do: [ { stop: true } ] }")
        let event = BotEvent(event: Event(position: 1, type: .memberJoined, at: Timestamp(milliseconds: 0),
                                          conversation: ConversationRef(id: ConversationID(rawValue: 1), kind: .group,
                                                                        address: .group("lobby")),
                                          user: BotEvent.message(from: "bob", text: "").sender))
        #expect(RuleEngine(bot: bot).decide(event, context: Bots.context(bot)).isEmpty)
    }
}

@Suite struct AnyWordTests {
    let normalized = "{ text: { any_word: [scam, \"free money\", bitcoin], normalize: true } }"

    @Test(arguments: [
        "this is a SCAM",
        "Scám alert",
        "sc@m",
        "$cam",
        "5c4m",
        "s.c.a.m",
        "s c a m",
        "get f r e e  m0ney now",
        "FREE-MONEY!!!",
        "freemoney",
        "Ｆｒｅｅ Ｍｏｎｅｙ",
        "fr\u{200B}ee money",
        "frее money",
        "b1tc01n",
    ])
    func normalisationCatchesDisguisedWords(_ text: String) throws {
        #expect(try Bots.matches(normalized, text))
    }

    @Test(arguments: [
        "this cam is broken",
        "scampi for dinner",
        "money for free",
        "free of charge",
        "",
    ])
    func normalisationStillMatchesWholeWordsOnly(_ text: String) throws {
        #expect(try !Bots.matches(normalized, text))
    }

    @Test func withoutNormalisationWordsMatchAsWritten() throws {
        let when = "{ text: { any_word: [scam, \"free money\"] } }"
        #expect(try Bots.matches(when, "a scam!"))
        #expect(try Bots.matches(when, "get free   money"))
        #expect(try !Bots.matches(when, "a SCAM"))
        #expect(try !Bots.matches(when, "sc4m"))
        #expect(try !Bots.matches(when, "freemoney"))
        #expect(try Bots.matches("{ text: { any_word: [scam], ignore_case: true } }", "a SCAM"))
    }

    @Test func normalisedEqualsAndContainsIgnoreSpacingAndDisguise() throws {
        #expect(try Bots.matches("{ text: { equals: \"free money\", normalize: true } }", "F R E E  m0ney!"))
        #expect(try Bots.matches("{ text: { contains: \"free money\", normalize: true } }", "get fr33 m0n3y"))
    }
}
