import IMProtocol
import Templates
import YAMLCoding

extension RuleExample: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case from, text, `in`, event, member, state, now, http, expect, times, every, via
    }

    /// Decodes one `examples:` entry.
    public init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: Key.self)
        func fail(_ message: String, _ mark: YAMLMark, _ key: Key) -> DecodingError {
            context.failure(.invalidValue, message, at: mark, path: container.codingPath + [key])
        }

        var event = EventType.message
        if let written = try container.decodeIfPresent(Located<String>.self, forKey: .event) {
            let known = EventType.known.map(\.rawValue)
            guard known.contains(written.value) else {
                throw fail("unknown event '\(written.value)'\(Suggestion.hint(for: written.value, among: known))",
                           written.mark, .event)
            }
            event = EventType(rawValue: written.value)
        }
        var conversation: ConversationAddress?
        if let written = try container.decodeIfPresent(Located<String>.self, forKey: .in) {
            guard let address = ConversationAddress(written.value.lowercased()), !Self.isID(address) else {
                throw fail("'\(written.value)' is not an address for an example (write user:NAME, "
                           + "group:NAME or room:NAME)", written.mark, .in)
            }
            conversation = address
        }
        var now: Timestamp?
        if let written = try container.decodeIfPresent(Located<String>.self, forKey: .now) {
            guard let time = Timestamp(rfc3339: written.value) else {
                throw fail("'\(written.value)' is not an RFC 3339 time (e.g. 2025-01-06T09:30:00+01:00)",
                           written.mark, .now)
            }
            now = time
        }
        let from = try container.decodeIfPresent(ExampleUser.self, forKey: .from)
        let text = try container.decodeIfPresent(String.self, forKey: .text)
        let member = try container.decodeIfPresent(ExampleUser.self, forKey: .member)
        let state = try container.decodeIfPresent([String: YAMLValue].self, forKey: .state) ?? [:]
        let http = try container.decodeIfPresent(OrderedMap<ScriptedResponse>.self, forKey: .http)
        let expectation = try container.decode(Expectation.self, forKey: .expect)
        let times = try container.decodeIfPresent(Located<Int>.self, forKey: .times)
        if let times, !(1...1_000).contains(times.value) {
            throw fail("times must be from 1 to 1000", times.mark, .times)
        }
        let every = try container.decodeIfPresent(ConfigDuration.self, forKey: .every)
        // How a member came in is the member's (`member: {via: invite}`), one way to say it.
        if let written = try container.decodeIfPresent(Located<String>.self, forKey: .via) {
            throw fail("'via' belongs to the member: write member: { username: NAME, via: \(written.value) }",
                       written.mark, .via)
        }

        if event == .message, from == nil {
            throw context.failure(.missingKey, "an example message needs 'from' (who sends it)",
                                  at: decoder.mark, path: decoder.codingPath)
        }
        if event == .message, text == nil {
            throw context.failure(.missingKey, "an example message needs 'text'",
                                  at: decoder.mark, path: decoder.codingPath)
        }
        if event != .message, from == nil, member == nil {
            throw context.failure(.missingKey, "an example \(event.rawValue) event needs 'member' (who it is about; "
                                  + "'from' too when someone else acted)", at: decoder.mark, path: decoder.codingPath)
        }
        self.init(location: SourceLocation(file: context.file, mark: decoder.mark), from: from, text: text,
                  conversation: conversation, event: event, member: member,
                  state: state.mapValues(TemplateValue.init(yaml:)), now: now,
                  http: Dictionary(uniqueKeysWithValues: (http?.entries ?? []).map { ($0.key, $0.value) }),
                  httpNames: (http?.entries ?? []).map { Located($0.key, mark: http?.keyMarks[$0.key] ?? .unknown) },
                  expectation: expectation)
        self.times = times?.value ?? 1
        self.every = every ?? ConfigDuration(seconds: 1)
    }

    private static func isID(_ address: ConversationAddress) -> Bool {
        if case .id = address { return true }
        return false
    }
}

extension ExampleUser: Decodable {
    enum Key: String, CodingKey, CaseIterable { case username, nickname, isBot, role, via }

    /// `alice` or `{username, nickname, is_bot, role, via}`.
    init(from decoder: any Decoder) throws {
        guard try decoder.node().mapping != nil else {
            self.init(person: BotEvent.Person(try decoder.decodeValue(String.self)), via: nil)
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        let person = BotEvent.Person(try container.decode(String.self, forKey: .username),
                                     nickname: try container.decodeIfPresent(String.self, forKey: .nickname),
                                     isBot: try container.decodeIfPresent(Bool.self, forKey: .isBot) ?? false,
                                     role: try container.decodeIfPresent(MemberRole.self, forKey: .role))
        self.init(person: person, via: try container.decodeIfPresent(JoinVia.self, forKey: .via))
    }
}

extension ScriptedResponse: Decodable {
    enum Key: String, CodingKey, CaseIterable { case status, body, headers }

    /// `{status, body, headers}`; status defaults to 200.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let status = try container.decodeIfPresent(Located<Int>.self, forKey: .status)
        if let status, !(100...599).contains(status.value) {
            throw decoder.botDecoding.failure(.invalidValue, "\(status.value) is not an HTTP status",
                                              at: status.mark, path: container.codingPath + [Key.status])
        }
        self.init(status: status?.value ?? 200,
                  body: try container.decodeIfPresent(YAMLValue.self, forKey: .body),
                  headers: try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:])
    }
}
