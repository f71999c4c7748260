import Foundation
import IMProtocol
import Templates
import YAMLCoding

extension RuleExample: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case from, text, `in`, event, member, state, now, http, expect, times, every, via
        case texts, edit, payload, payloadFile, notifications, after
    }

    /// The keys of an example of feed events, which a webhook example has no use for.
    private static let feedKeys: [Key] = [.from, .text, .in, .event, .member, .http, .times, .every, .via, .texts, .edit]

    /// Decodes one `examples:` entry.
    public init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: Key.self)
        func fail(_ message: String, _ mark: YAMLMark, _ key: Key) -> DecodingError {
            context.failure(.invalidValue, message, at: mark, path: container.codingPath + [key])
        }
        if container.contains(.payload) || container.contains(.payloadFile) || container.contains(.notifications) {
            try self.init(webhook: container, decoder: decoder)
            return
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
            let path = container.codingPath + [Key.in]
            guard let address = try decoder.botDecoding.conversation(written.value, at: written.mark, path: path,
                                                                      joins: false),
                  !Self.isID(address) else {
                throw fail("'\(written.value)' is not an address for an example (write user:NAME, "
                           + "group:NAME or room:NAME; on Matrix '#alias:server', '!id:server' or '@user:server')",
                           written.mark, .in)
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
        var text = try container.decodeIfPresent(String.self, forKey: .text)
        let texts = try container.decodeIfPresent(Located<[String]>.self, forKey: .texts)
        if let texts {
            guard text == nil else { throw fail("give 'text' or 'texts', not both", texts.mark, .texts) }
            guard let first = texts.value.first else {
                throw fail("texts needs at least one text (the repetitions of 'times' send them in turn)", texts.mark,
                           .texts)
            }
            text = first
        }
        let edit = try container.decodeIfPresent(Located<String>.self, forKey: .edit)
        if let edit, event != .message {
            throw fail("'edit' edits the example's message after it is posted: it needs a message example (no "
                       + "'event:')", edit.mark, .edit)
        }
        let member = try container.decodeIfPresent(ExampleUser.self, forKey: .member)
        if let after = try container.decodeIfPresent(YAMLNode.self, forKey: .after) {
            throw fail("'after' is the time between a webhook example's notifications; a feed example repeats with "
                       + "'times' and 'every'", after.mark, .after)
        }
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

        let written = event == .message || event == .messageEdited
        if written, from == nil {
            throw context.failure(.missingKey, "an example message needs 'from' (who sends it)",
                                  at: decoder.mark, path: decoder.codingPath)
        }
        if written, text == nil {
            throw context.failure(.missingKey, "an example message needs 'text'",
                                  at: decoder.mark, path: decoder.codingPath)
        }
        if let incident = expectation.incidentsMark {
            throw context.failure(.invalidValue, "'incident' is what a webhook rule's example expects (with payload: "
                                  + "or payload_file:); this example sends a feed event", at: incident,
                                  path: container.codingPath + [Key.expect])
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
        self.times = times?.value ?? (texts.map { $0.value.count } ?? 1)
        self.every = every ?? ConfigDuration(seconds: 1)
        self.texts = texts?.value
        self.edit = edit?.value
    }

    /// A webhook rule's example: `payload:` (the body, inline) or `payload_file:` (a file
    /// next to the bot file, as it arrives on the wire) with `expect:`, or
    /// `notifications:`, a list of such steps with `after:` (the time since the one before).
    private init(webhook container: KeyedDecodingContainer<Key>, decoder: any Decoder) throws {
        let context = decoder.botDecoding
        for key in Self.feedKeys where container.contains(key) {
            let mark = (try? container.decode(YAMLNode.self, forKey: key))?.mark ?? decoder.mark
            throw context.failure(.invalidValue, "'\(key.stringValue.snakeCased)' is not for a webhook example: it sends "
                                  + "a payload (no sender, text or conversation)", at: mark,
                                  path: container.codingPath + [key])
        }
        var now: Timestamp?
        if let written = try container.decodeIfPresent(Located<String>.self, forKey: .now) {
            guard let time = Timestamp(rfc3339: written.value) else {
                throw context.failure(.invalidValue, "'\(written.value)' is not an RFC 3339 time (e.g. "
                                      + "2025-01-06T09:30:00+01:00)", at: written.mark, path: container.codingPath + [Key.now])
            }
            now = time
        }
        let state = try container.decodeIfPresent([String: YAMLValue].self, forKey: .state) ?? [:]
        var steps: [WebhookExampleStep]
        if container.contains(.notifications) {
            for key in [Key.payload, .payloadFile, .expect] where container.contains(key) {
                let mark = (try? container.decode(YAMLNode.self, forKey: key))?.mark ?? decoder.mark
                throw context.failure(.invalidValue, "with 'notifications', each notification has its own "
                                      + "\(key == .expect ? "expect" : "payload"): move '\(key.stringValue.snakeCased)' into one",
                                      at: mark, path: container.codingPath + [key])
            }
            let list = try container.decode(Located<[WebhookStepEntry]>.self, forKey: .notifications)
            guard !list.value.isEmpty else {
                throw context.failure(.invalidValue, "notifications needs at least one notification", at: list.mark,
                                      path: container.codingPath + [Key.notifications])
            }
            steps = list.value.map(\.step)
        } else {
            steps = [try WebhookStepEntry(container: container, decoder: decoder, location: decoder.mark).step]
        }
        let expectation = steps.last?.expectation ?? Expectation()
        self.init(location: SourceLocation(file: context.file, mark: decoder.mark), from: nil, text: nil,
                  conversation: nil, event: .other("webhook"), member: nil, state: state.mapValues(TemplateValue.init(yaml:)),
                  now: now, http: [:], httpNames: [], expectation: expectation)
        webhook = steps
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

/// One notification of a webhook example, as written: `payload:` or `payload_file:`,
/// `after:` and `expect:` (either payload alone, or `after:` alone when only time passes).
private struct WebhookStepEntry: Decodable {
    var step: WebhookExampleStep

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RuleExample.Key.self)
        let allowed: Set<RuleExample.Key> = [.payload, .payloadFile, .expect, .after]
        for key in container.allKeys where !allowed.contains(key) {
            let mark = (try? container.decode(YAMLNode.self, forKey: key))?.mark ?? decoder.mark
            throw decoder.botDecoding.failure(.invalidValue, "a notification has payload or payload_file, after and "
                                              + "expect; not '\(key.stringValue.snakeCased)'", at: mark,
                                              path: container.codingPath + [key])
        }
        self = try WebhookStepEntry(container: container, decoder: decoder, location: decoder.mark)
    }

    init(container: KeyedDecodingContainer<RuleExample.Key>, decoder: any Decoder, location: YAMLMark) throws {
        let context = decoder.botDecoding
        func fail(_ message: String, _ mark: YAMLMark, _ key: RuleExample.Key) -> DecodingError {
            context.failure(.invalidValue, message, at: mark, path: container.codingPath + [key])
        }
        let after = try container.decodeIfPresent(ConfigDuration.self, forKey: .after) ?? ConfigDuration(seconds: 0)
        var body: Data?
        var source = "inline payload"
        var payloadMark = location
        if container.contains(.payload), container.contains(.payloadFile) {
            let mark = try container.decode(YAMLNode.self, forKey: .payloadFile).mark
            throw fail("give 'payload' or 'payload_file', not both", mark, .payloadFile)
        }
        if container.contains(.payload) {
            let node = try container.decode(YAMLNode.self, forKey: .payload)
            payloadMark = node.mark
            guard node.mapping != nil else {
                throw fail("payload is the body as a mapping (the JSON the sender posts, written as YAML); for a "
                           + "file as it arrives on the wire, use payload_file", node.mark, .payload)
            }
            do {
                body = try JSONEncoder().encode(node.value)
            } catch {
                throw fail("payload cannot be written as JSON: \(error)", node.mark, .payload)
            }
        } else if let file = try container.decodeIfPresent(Located<String>.self, forKey: .payloadFile) {
            payloadMark = file.mark
            let path = file.value.hasPrefix("/") ? file.value
                : URL(fileURLWithPath: context.directory).appendingPathComponent(file.value).standardizedFileURL.path
            // Reported, not thrown: the rule's other examples are still read and checked.
            if let data = FileManager.default.contents(atPath: path), data.count <= WebhookEndpoint.maximumBodyBytes {
                body = data
            } else {
                context.report(.missingFile, FileManager.default.fileExists(atPath: path)
                    ? "payload_file '\(file.value)' is larger than 16 MiB"
                    : "payload_file '\(file.value)' cannot be read (looked for \(path))", at: file.mark)
            }
            source = file.value
        } else if !container.contains(.after) {
            throw context.failure(.missingKey, "a webhook example needs payload (the body, inline) or payload_file "
                                  + "(a file next to the bot file), or after: alone when only time passes",
                                  at: location, path: container.codingPath)
        }
        let expectation = try container.decode(Expectation.self, forKey: .expect)
        step = WebhookExampleStep(location: SourceLocation(file: context.file, mark: location), body: body,
                                  source: source, payloadMark: payloadMark, after: after, expectation: expectation)
    }
}

private extension String {
    /// `payloadFile` as files write it: `payload_file`.
    var snakeCased: String {
        var result = ""
        for character in self {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
