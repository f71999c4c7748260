import IMProtocol
import YAMLCoding

extension Action: Decodable {
    /// The action names; the second group is moderation's (`ModerationSpec+Decoding.swift`).
    enum Key: String, CodingKey, CaseIterable {
        case reply, notice, send, forward, updateProfile, http, set, increment, stop, incident
        case delete, mute, unmute, kick, ban, unban, warn, approve, deny, slowMode, joinPolicy, strike, report, verify
        case `case`, undo, strikes
    }

    /// One `do` item: a mapping with exactly one action name as its key.
    public init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let node = try decoder.node()
        guard let pairs = node.mapping else {
            throw context.failure(.typeMismatch,
                "expected an action (a mapping with one key, e.g. '- reply: \"Hi\"'), found \(Self.found(node))",
                at: node.mark, path: decoder.codingPath)
        }
        let container = try decoder.container(keyedBy: Key.self)
        let keys = container.allKeys
        guard keys.count == 1, let key = keys.first else {
            if keys.isEmpty, !pairs.isEmpty {
                // Only unknown keys: the strict-key check reports each with a suggestion.
                throw BotDecoding.silentFailure(path: decoder.codingPath)
            }
            let message = keys.isEmpty
                ? "an action needs one of: " + ActionKind.allCases.map(\.rawValue).joined(separator: ", ")
                : "an action has exactly one key, found " + keys.map { Self.text($0) }.joined(separator: ", ")
                    + " (start each action with its own '-')"
            throw context.failure(.invalidValue, message, at: node.mark, path: decoder.codingPath)
        }
        let spec: ActionSpec
        switch key {
        case .reply: spec = .reply(try container.decode(ReplySpec.self, forKey: key))
        case .notice: spec = .notice(try container.decode(ReplySpec.self, forKey: key))
        case .send: spec = .send(try container.decode(SendSpec.self, forKey: key))
        case .forward: spec = .forward(try container.decode(ForwardSpec.self, forKey: key))
        case .updateProfile: spec = .updateProfile(try container.decode(UpdateProfileSpec.self, forKey: key))
        case .http: spec = .http(try container.decode(HTTPSpec.self, forKey: key))
        case .set: spec = .set(try container.decode(SetSpec.self, forKey: key).assignments)
        case .increment: spec = .increment(try container.decode(IncrementSpec.self, forKey: key))
        case .incident: spec = .incident(try container.decode(IncidentSpec.self, forKey: key))
        case .stop:
            let value = try container.decode(Located<Bool>.self, forKey: key)
            guard value.value else {
                throw context.failure(.invalidValue, "'stop: false' does nothing; remove it",
                                      at: value.mark, path: container.codingPath + [key])
            }
            spec = .stop
        case .delete, .mute, .unmute, .kick, .ban, .unban, .warn, .approve, .deny, .slowMode, .joinPolicy, .strike,
             .report, .verify, .case, .undo, .strikes:
            spec = .moderation(try ModerationSpec.decode(key, in: container, context: context))
        }
        self.init(spec: spec, location: SourceLocation(file: context.file, mark: node.mark))
    }

    /// The name as written in bot files.
    static func text(_ key: Key) -> String {
        key.stringValue.reduce(into: "") { name, character in
            name += character.isUppercase ? "_" + character.lowercased() : String(character)
        }
    }

    private static func found(_ node: YAMLNode) -> String {
        node.sequence != nil ? "a list" : "'\(node.scalar?.text ?? "")'"
    }
}

extension ReplySpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case text, quote }

    init(from decoder: any Decoder) throws {
        guard try decoder.node().mapping != nil else {
            self.init(text: try decoder.decodeValue(TemplateText.self), quote: false)
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        self.init(text: try container.decode(TemplateText.self, forKey: .text),
                  quote: try container.decodeIfPresent(Bool.self, forKey: .quote) ?? false)
    }
}

extension SendSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case to, text }

    init(from decoder: any Decoder) throws {
        guard try decoder.node().mapping != nil else {
            self.init(to: nil, text: try decoder.decodeValue(TemplateText.self))
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        self.init(to: try container.decodeIfPresent(AddressTemplate.self, forKey: .to),
                  text: try container.decode(TemplateText.self, forKey: .text))
    }
}

extension ForwardSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case to, text }

    init(from decoder: any Decoder) throws {
        guard try decoder.node().mapping != nil else {
            self.init(to: try decoder.decodeValue(AddressTemplate.self), text: nil)
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        self.init(to: try container.decode(AddressTemplate.self, forKey: .to),
                  text: try container.decodeIfPresent(TemplateText.self, forKey: .text))
    }
}

extension UpdateProfileSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case nickname, signature, avatarURL = "avatarUrl", attrs }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(nickname: try container.decodeIfPresent(TemplateText.self, forKey: .nickname),
                  signature: try container.decodeIfPresent(TemplateText.self, forKey: .signature),
                  avatarURL: try container.decodeIfPresent(TemplateText.self, forKey: .avatarURL),
                  attrs: try container.decodeIfPresent(OrderedMap<TemplateText>.self, forKey: .attrs)?.entries ?? [])
        guard nickname != nil || signature != nil || avatarURL != nil || !attrs.isEmpty else {
            throw decoder.botDecoding.failure(.invalidValue,
                "'update_profile' needs one of: nickname, signature, avatar_url, attrs",
                at: decoder.mark, path: decoder.codingPath)
        }
    }
}

extension AddressTemplate: Decodable {
    /// A template; when it has no tags it must already be a valid address.
    init(from decoder: any Decoder) throws {
        let text = try decoder.decodeValue(TemplateText.self)
        if text.isConstant,
           try decoder.botDecoding.conversation(text.source, at: text.mark, path: decoder.codingPath) == nil {
            throw decoder.botDecoding.failure(
                .invalidValue,
                "'\(text.source)' is not an address (write user:NAME, group:NAME, room:NAME or a conversation id; "
                    + "on Matrix '!id:server', '#alias:server' or '@user:server')",
                at: text.mark, path: decoder.codingPath)
        }
        self.init(text: text)
    }
}

extension IncidentSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case to, flapHold, title, line }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let hold = try container.decodeIfPresent(ConfigDuration.self, forKey: .flapHold)
        self.init(to: try container.decode(AddressTemplate.self, forKey: .to),
                  flapHold: .milliseconds(Int64((hold?.seconds ?? 300) * 1000)),
                  title: try container.decodeIfPresent(TemplateText.self, forKey: .title),
                  line: try container.decodeIfPresent(TemplateText.self, forKey: .line))
    }
}

/// `set: {key: value, ...}`.
private struct SetSpec: Decodable {
    var assignments: [StateAssignment]

    init(from decoder: any Decoder) throws {
        let entries = try decoder.decodeValue(OrderedMap<ValueTemplate>.self)
        assignments = []
        for entry in entries.entries {
            guard let key = StateKey(entry.key) else {
                throw decoder.botDecoding.failure(.invalidValue, StateKey.invalidMessage(entry.key),
                                                  at: entries.keyMarks[entry.key] ?? decoder.mark,
                                                  path: decoder.codingPath)
            }
            assignments.append(StateAssignment(key: key, value: entry.value))
        }
        if assignments.isEmpty {
            throw decoder.botDecoding.failure(.invalidValue, "'set' needs at least one key",
                                              at: decoder.mark, path: decoder.codingPath)
        }
    }
}

extension IncrementSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case key, by }

    init(from decoder: any Decoder) throws {
        let name: Located<String>
        var by = 1
        if try decoder.node().mapping != nil {
            let container = try decoder.container(keyedBy: Key.self)
            name = try container.decode(Located<String>.self, forKey: .key)
            by = try container.decodeIfPresent(Int.self, forKey: .by) ?? 1
        } else {
            name = try decoder.decodeValue(Located<String>.self)
        }
        guard let key = StateKey(name.value) else {
            throw decoder.botDecoding.failure(.invalidValue, StateKey.invalidMessage(name.value),
                                              at: name.mark, path: decoder.codingPath)
        }
        self.init(key: key, by: by)
    }
}

extension StateKey {
    /// Parses `name` or `name.field`: parts of letters, digits, `_` and `-`.
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(ParsedCommand.isNameByte) })
        else { return nil }
        self.init(path: parts)
    }

    static func invalidMessage(_ text: String) -> String {
        "'\(text)' is not a state key (use letters, digits, '_' and '-', with '.' to reach into objects)"
    }
}
