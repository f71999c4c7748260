import Testing
import YAMLCoding

/// Unknown keys are errors, found by tracking which keys the decoded types asked for.
struct StrictKeysTests {
    struct Rule: Decodable {
        var match: String
        var reply: String?
        var delay: Int?
    }

    struct Bot: Decodable {
        var name: String
        var rules: [Rule]
        var limits: Limits?
    }

    struct Limits: Decodable {
        var total: Int
        var perUser: Int?
    }

    @Test func anUnknownKeyIsReportedAtItsPositionWithASuggestion() {
        #expect(errorLines {
            _ = try decoder.decode(Bot.self, from: """
                name: helpdesk
                rules:
                  - match: hi
                    repyl: hello
                """, file: "bots/x.yaml")
        } == ["bots/x.yaml:4:5: unknown key 'repyl' (did you mean 'reply'?)"])
    }

    @Test func withoutACloseMatchTheKnownKeysAreListed() {
        #expect(errorLines { _ = try decoder.decode(Limits.self, from: "total: 1\ncolour: red\n", file: "l.yaml") } == [
            "l.yaml:2:1: unknown key 'colour' (expected one of: total, perUser)",
        ])
    }

    @Test func suggestionsIgnoreCaseAndSeparators() {
        #expect(errorLines { _ = try decoder.decode(Limits.self, from: "total: 1\nper_user: 2\n") } == [
            "2:1: unknown key 'per_user' (did you mean 'perUser'?)",
        ])
    }

    @Test func everyProblemInADocumentIsReportedInSourceOrder() {
        #expect(errorLines {
            _ = try decoder.decode(Bot.self, from: """
                name: helpdesk
                limits:
                  total: many
                  perUsr: 3
                rules:
                  - match: hi
                    repyl: hello
                  - match: [1]
                  - match: ok
                    delay: soon
                    dealy: 4
                extra: true
                """, file: "bots/x.yaml")
        } == [
            "bots/x.yaml:3:10: expected an integer for 'limits.total', found \"many\"",
            "bots/x.yaml:4:3: unknown key 'perUsr' (did you mean 'perUser'?)",
            "bots/x.yaml:7:5: unknown key 'repyl' (did you mean 'reply'?)",
            "bots/x.yaml:8:12: expected a string for 'rules[1].match', found a list",
            "bots/x.yaml:10:12: expected an integer for 'rules[2].delay', found \"soon\"",
            "bots/x.yaml:11:5: unknown key 'dealy' (did you mean 'delay'?)",
            "bots/x.yaml:12:1: unknown key 'extra' (expected one of: name, rules, limits)",
        ])
    }

    /// Reads `to` only for forwards; lists every key so the check can tell "known but
    /// unused here" from "unknown".
    struct Action: Decodable, YAMLKnownKeys {
        static let yamlKnownKeys = ["type", "text", "to"]
        var type: String
        var target: String?

        enum Keys: String, CodingKey { case type, text, to }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            type = try container.decode(String.self, forKey: .type)
            if type == "forward" {
                target = try container.decode(String.self, forKey: .to)
            }
        }
    }

    @Test func knownKeysTellUnusedFromUnknownAndImproveSuggestions() {
        #expect(errorLines {
            _ = try decoder.decode([Action].self, from: """
                - {type: forward, to: ops}
                - {type: reply, to: ops}
                - {type: reply, txet: hi}
                """, file: "a.yaml")
        } == [
            "a.yaml:2:17: key 'to' is not used here",
            "a.yaml:3:17: unknown key 'txet' (did you mean 'text'?)",
        ])
    }

    @Test func caseIterableCodingKeysSupplySuggestions() {
        struct Picky: Decodable {
            var a: Int?
            enum CodingKeys: String, CodingKey, CaseIterable { case a, timeout }
            init(from decoder: any Decoder) throws {
                // Reads only `a`, but its keys list `timeout` too.
                a = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Int.self, forKey: .a)
            }
        }
        #expect(errorLines { _ = try decoder.decode(Picky.self, from: "timout: 3\n") } == [
            "1:1: unknown key 'timout' (did you mean 'timeout'?)",
        ])
    }

    /// A one-key mapping naming its kind: `- reply: hi` or `- forward: {to: ops}`.
    enum Step: Decodable {
        case reply(String)
        case forward(to: String)

        enum Kind: String, CodingKey, CaseIterable { case reply, forward }
        enum ForwardKeys: String, CodingKey { case to }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Kind.self)
            guard container.allKeys.count == 1, let kind = container.allKeys.first else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                    debugDescription: "a step has exactly one of: reply, forward"))
            }
            switch kind {
            case .reply: self = .reply(try container.decode(String.self, forKey: .reply))
            case .forward:
                let forward = try container.nestedContainer(keyedBy: ForwardKeys.self, forKey: .forward)
                self = .forward(to: try forward.decode(String.self, forKey: .to))
            }
        }
    }

    @Test func declaredKeysAreCheckedEvenWhenTheTypeRejectsTheMapping() {
        #expect(errorLines {
            _ = try decoder.decode([Step].self, from: "- reply: hi\n- sned: x\n- forward: {to: a, cc: b}\n", file: "s.yaml")
        } == [
            "s.yaml:2:3: invalid value for '[1]': a step has exactly one of: reply, forward",
            "s.yaml:2:3: unknown key 'sned' (expected one of: reply, forward)",
            "s.yaml:3:20: unknown key 'cc' (expected one of: to)",
        ])
    }

    @Test func snakeCaseKeysMapToCamelCaseNamesAndMessagesKeepTheTextSpelling() throws {
        struct Limits: Decodable, Equatable {
            var perConversation: String
            var perGroup: String?
            var extraHeaders: [String: String]?
        }
        struct Bot: Decodable { var limits: Limits }
        let snake = YAMLDecoder(interpolation: .disabled, keyDecodingStrategy: .convertFromSnakeCase)
        let bot = try snake.decode(Bot.self, from: "limits: {per_conversation: 1/s, extra_headers: {X_Id: 1}}\n")
        #expect(bot.limits == Limits(perConversation: "1/s", perGroup: nil, extraHeaders: ["X_Id": "1"]))
        #expect(errorLines {
            _ = try snake.decode(Bot.self, from: "limits:\n  per_conversation: [1]\n  per_grop: 2\n", file: "b.yaml")
        } == [
            "b.yaml:2:21: expected a string for 'limits.per_conversation', found a list",
            "b.yaml:3:3: unknown key 'per_grop' (did you mean 'per_group'?)",
        ])
        #expect(errorLines { _ = try snake.decode(Bot.self, from: "limits: {per_group: x}\n", file: "b.yaml") } == [
            "b.yaml:1:9: missing required key 'per_conversation' in 'limits'",
        ])
    }

    @Test func dictionariesAndFreeFormFieldsAcceptAnyKeys() throws {
        struct Hook: Decodable {
            var headers: [String: String]
            var match: YAMLValue
            var template: YAMLNode
        }
        let hook = try decoder.decode(Hook.self, from: """
            headers: {anything: 1, goes: 2}
            match: {labels: {severity: critical}, count: 3}
            template:
              title: x
              body: [1, 2]
            """)
        #expect(hook.headers == ["anything": "1", "goes": "2"])
        #expect(hook.match == ["labels": ["severity": "critical"], "count": 3])
        #expect(hook.template["body"]?.mark == YAMLMark(line: 5, column: 9))
    }

    @Test func typesThatIterateAllKeysUseThemAll() throws {
        struct Bag: Decodable {
            var names: [String]
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: TestKey.self)
                names = container.allKeys.map(\.stringValue)
            }
        }
        #expect(try decoder.decode(Bag.self, from: "x: 1\ny: 2\n").names == ["x", "y"])
    }

    @Test func aMappingReusedThroughAnAliasOrMergeIsJudgedAtItsSource() {
        #expect(errorLines {
            _ = try decoder.decode([String: Limits].self, from: """
                a: &shared {total: 1, perUser: 2}
                b: *shared
                c: {<<: *shared, totl: 3}
                d: &bad {total: 1, extra: 1}
                e: {<<: *bad}
                """, file: "m.yaml")
        } == [
            "m.yaml:3:18: unknown key 'totl' (did you mean 'total'?)",
            "m.yaml:4:20: unknown key 'extra' (expected one of: total, perUser)",
        ])
    }

    @Test func probingWithTryDoesNotLeaveErrorsBehind() throws {
        /// `reply: text` or `reply: {text: ..., delay: ...}`.
        struct Reply: Decodable, Equatable {
            var text: String
            var delay: Int?
            enum CodingKeys: String, CodingKey { case text, delay }
            init(text: String, delay: Int?) { self.text = text; self.delay = delay }
            init(from decoder: any Decoder) throws {
                if let text = try? decoder.singleValueContainer().decode(String.self) {
                    self.init(text: text, delay: nil)
                    return
                }
                let container = try decoder.container(keyedBy: CodingKeys.self)
                self.init(text: try container.decode(String.self, forKey: .text),
                          delay: try container.decodeIfPresent(Int.self, forKey: .delay))
            }
        }
        #expect(try decoder.decode([Reply].self, from: "- hi\n- {text: yo, delay: 2}\n")
                == [Reply(text: "hi", delay: nil), Reply(text: "yo", delay: 2)])
        #expect(errorLines { _ = try decoder.decode([Reply].self, from: "- {text: yo, dealy: 2}\n") } == [
            "1:14: unknown key 'dealy' (did you mean 'delay'?)",
        ])
    }

    @Test func errorsThrownByATypeAreLocated() {
        struct Port: Decodable {
            var port: Int
            enum CodingKeys: String, CodingKey { case port }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                port = try container.decode(Int.self, forKey: .port)
                guard (1...65535).contains(port) else {
                    throw DecodingError.dataCorruptedError(forKey: .port, in: container,
                                                           debugDescription: "a port is 1 to 65535")
                }
            }
        }
        struct Named: Decodable {
            init(from decoder: any Decoder) throws {
                throw YAMLError(.invalidValue, "names must be lowercase")
            }
        }
        #expect(errorLines { _ = try decoder.decode([Port].self, from: "- port: 80\n- port: 70000\n", file: "p.yaml") } == [
            "p.yaml:2:9: invalid value for '[1].port': a port is 1 to 65535",
        ])
        #expect(errorLines { _ = try decoder.decode([String: Named].self, from: "a:\n  b: C\n", file: "n.yaml") } == [
            "n.yaml:2:3: names must be lowercase",
        ])
    }

    @Test func locatedValuesKeepTheirMark() throws {
        struct Entry: Decodable { var name: Located<String>; var tags: Located<[String]> }
        let entry = try decoder.decode(Entry.self, from: "name: alpha\ntags:\n  - x\n")
        #expect(entry.name.value == "alpha")
        #expect(entry.name.mark == YAMLMark(line: 1, column: 7))
        #expect(entry.tags.mark == YAMLMark(line: 3, column: 3))
    }
}

struct TestKey: CodingKey {
    var stringValue: String
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}
