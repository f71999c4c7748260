import Testing
import YAMLCoding

struct DecoderTests {
    struct Bot: Decodable, Equatable {
        struct Limits: Decodable, Equatable {
            var total: Double
            var perUser: Int?
        }
        struct Rule: Decodable, Equatable {
            var match: String
            var reply: String
            var delay: Int?
        }
        enum Mode: String, Decodable, CaseIterable {
            case quiet, loud
        }
        var name: String
        var enabled: Bool
        var limits: Limits
        var rules: [Rule]
        var headers: [String: String]?
        var weights: [Int: Double]?
        var mode: Mode?
        var aliases: Set<String>?
    }

    @Test func decodesNestedStructsListsDictionariesEnumsAndOptionals() throws {
        let bot = try decoder.decode(Bot.self, from: """
            name: helpdesk
            enabled: true
            limits: {total: 2.5}
            rules:
              - match: hi
                reply: |
                  Hello!
                  How can I help?
              - {match: bye, reply: ciao, delay: 3}
            headers: {X-Token: abc, Retry: 3}
            weights: {1: 0.5, 2: 1}
            mode: loud
            aliases: [hd, help]
            """, file: "bots/helpdesk.yaml")
        #expect(bot == Bot(
            name: "helpdesk", enabled: true, limits: .init(total: 2.5, perUser: nil),
            rules: [.init(match: "hi", reply: "Hello!\nHow can I help?\n", delay: nil),
                    .init(match: "bye", reply: "ciao", delay: 3)],
            headers: ["X-Token": "abc", "Retry": "3"], weights: [1: 0.5, 2: 1],
            mode: .loud, aliases: ["hd", "help"]))
    }

    @Test func nullAndAbsentOptionalsAreNil() throws {
        struct Options: Decodable { var a: Int?; var b: String?; var c: [Int]? }
        let options = try decoder.decode(Options.self, from: "a: ~\nb:\n")
        #expect(options.a == nil && options.b == nil && options.c == nil)
    }

    @Test(arguments: [
        ("limits:\n  total: abc\n", "bots/x.yaml:2:10: expected a number for 'limits.total', found \"abc\""),
        ("limits:\n  total: 1\n  perUser: 2.5\n", "bots/x.yaml:3:12: expected an integer for 'limits.perUser', found 2.5"),
        ("limits:\n  total: [1]\n", "bots/x.yaml:2:10: expected a number for 'limits.total', found a list"),
        ("limits: 5\n", "bots/x.yaml:1:9: expected a mapping for 'limits', found 5"),
        ("limits:\n", "bots/x.yaml:1:8: expected a mapping for 'limits', found an empty value"),
        ("limits: {total: \"1\"}\n", "bots/x.yaml:1:17: expected a number for 'limits.total', found \"1\""),
    ])
    func typeMismatchesNameThePathAndPosition(_ text: String, _ expected: String) {
        struct Holder: Decodable { var limits: Bot.Limits }
        #expect(errorLines { _ = try decoder.decode(Holder.self, from: text, file: "bots/x.yaml") } == [expected])
    }

    @Test func anEmptyFileIsAnEmptyValue() {
        #expect(errorLines { _ = try decoder.decode(Bot.Limits.self, from: "", file: "bots/x.yaml") } == [
            "bots/x.yaml:1:1: expected a mapping, found an empty value",
        ])
    }

    @Test func integersOutOfRangeAreErrors() {
        struct Small: Decodable { var value: UInt8 }
        #expect(errorLines { _ = try decoder.decode(Small.self, from: "value: 300\n") } == [
            "1:8: 300 for 'value' is out of range for UInt8",
        ])
    }

    @Test func wholeFloatsDecodeAsIntegersAndIntegersAsDoubles() throws {
        struct Numbers: Decodable { var i: Int; var d: Double; var f: Float }
        let numbers = try decoder.decode(Numbers.self, from: "i: 3.0\nd: 2\nf: 0x10\n")
        #expect(numbers.i == 3 && numbers.d == 2 && numbers.f == 16)
    }

    @Test func scalarsOfAnyKindDecodeAsStringsButNullDoesNot() throws {
        struct Texts: Decodable { var a: String; var b: String; var c: String }
        let texts = try decoder.decode(Texts.self, from: "a: 80\nb: true\nc: 1.50\n")
        #expect([texts.a, texts.b, texts.c] == ["80", "true", "1.50"])
        #expect(errorLines { _ = try decoder.decode(Texts.self, from: "a: x\nb: ~\nc: y\n") } == [
            "2:4: expected a string for 'b', found null",
        ])
    }

    @Test func missingRequiredKeysPointAtTheEnclosingMapping() {
        #expect(errorLines {
            _ = try decoder.decode(Bot.self, from: """
                name: x
                enabled: false
                limits: {total: 1}
                rules:
                  - match: hi
                    delay: 2
                """, file: "bots/x.yaml")
        } == ["bots/x.yaml:5:5: missing required key 'reply' in 'rules[0]'"])
        #expect(errorLines { _ = try decoder.decode(Bot.Limits.self, from: "perUser: 1\n", file: "l.yaml") } == [
            "l.yaml:1:1: missing required key 'total'",
        ])
    }

    @Test func aMissingKeyNamesAMisspeltKeyOnce() {
        #expect(errorLines {
            _ = try decoder.decode(Bot.Rule.self, from: "match: hi\nrepyl: hello\n", file: "r.yaml")
        } == ["r.yaml:1:1: missing required key 'reply' (is 'repyl' at 2:1 a misspelling of it?)"])
    }

    @Test func badEnumValuesListTheCasesAndSuggestOne() {
        struct Holder: Decodable { var mode: Bot.Mode }
        #expect(errorLines { _ = try decoder.decode(Holder.self, from: "mode: lowd\n") } == [
            "1:7: expected one of 'quiet', 'loud' for 'mode', found \"lowd\" (did you mean 'loud'?)",
        ])
    }

    @Test func topLevelListsAndScalarsDecode() throws {
        #expect(try decoder.decode([Int].self, from: "[1, 2, 3]") == [1, 2, 3])
        #expect(try decoder.decode(String.self, from: "hello") == "hello")
        #expect(try decoder.decode([String: [Bool]].self, from: "a: [true]\nb: []\n") == ["a": [true], "b": []])
        #expect(try decoder.decode(Int?.self, from: "~") == nil)
    }

    @Test func decodeAllDecodesEveryDocument() throws {
        let rules = try decoder.decodeAll(Bot.Rule.self, from: """
            match: a
            reply: b
            ---
            match: c
            reply: d
            """)
        #expect(rules.map(\.reply) == ["b", "d"])
    }

    @Test func decodeRejectsAStreamWithTwoDocuments() {
        #expect(errorLines { _ = try decoder.decode(Bot.Rule.self, from: "match: a\nreply: b\n---\nx: 1\n", file: "r.yaml") } == [
            "r.yaml:3:1: expected a single YAML document, but another one starts here (remove the '---' or split the file)",
        ])
    }

    @Test func invalidYAMLIsReportedBeforeDecoding() {
        #expect(errorLines { _ = try decoder.decode(Bot.self, from: "name: x\n  bad: indent\n", file: "b.yaml") } == [
            "b.yaml:2:6: mapping values are not allowed in this context",
        ])
    }

    @Test func userInfoReachesTheTypes() throws {
        struct Reader: Decodable {
            var seen: String?
            init(from decoder: any Decoder) throws {
                seen = decoder.userInfo[CodingUserInfoKey(rawValue: "mode")!] as? String
            }
        }
        var custom = YAMLDecoder(interpolation: .disabled)
        custom.userInfo[CodingUserInfoKey(rawValue: "mode")!] = "strict"
        #expect(try custom.decode(Reader.self, from: "{}").seen == "strict")
    }
}

extension DecoderTests {
    final class Tree: Decodable {
        let children: [Tree]
    }

    @Test func theDeepestAllowedNestingDecodesWithoutExhaustingTheStack() throws {
        // 50 trees, each a mapping holding a list: 100 levels, the default limit.
        let text = String(repeating: "{children: [", count: 50) + String(repeating: "]}", count: 50)
        var tree = try decoder.decode(Tree.self, from: text)
        var depth = 1
        while let child = tree.children.first {
            tree = child
            depth += 1
        }
        #expect(depth == 50)
        #expect(errorLines { _ = try decoder.decode(Tree.self, from: "{children: [" + text + "]}") }
                == ["1:601: the document nests deeper than 100 levels"])
    }
}
