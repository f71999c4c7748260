import IMProtocol
import Templates
import YAMLCoding

extension Expectation: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case reply, notice, send, forward, updateProfile, state, rule, actions, incident
        case delete, mute, unmute, kick, ban, unban, warn, approve, deny, slowMode, joinPolicy, report, undo, strike, `case`
    }

    /// `nothing`, or a mapping of expected effects.
    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        guard try decoder.node().mapping != nil else {
            let text = try decoder.decodeValue(String.self)
            guard text == "nothing" else {
                throw context.failure(.invalidValue,
                    "expect is 'nothing' or a mapping with reply, send, forward, update_profile, state, rule "
                        + "or actions; found '\(text)'", at: decoder.mark, path: decoder.codingPath)
            }
            nothing = true
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        for key in Self.messageKeys where container.contains(key) {
            let items = try container.decode(OneOrMany<ExpectedAnyMessage>.self, forKey: key).items
            messages.append(ExpectedMessages(kind: try Self.kind(of: key), expected: items.map(\.message)))
        }
        profileUpdates = try container.decodeIfPresent(OneOrMany<ExpectedProfile>.self, forKey: .updateProfile)?
            .items
        state = try container.decodeIfPresent(OrderedMap<YAMLValue>.self, forKey: .state)?.entries.map {
            OrderedEntry(key: $0.key, value: TemplateValue(yaml: $0.value))
        }
        rules = try container.decodeIfPresent(OneOrMany<Located<String>>.self, forKey: .rule)?.items
        actions = try container.decodeIfPresent([ExpectedEffect].self, forKey: .actions)
        moderation = try ModerationExpectation(from: container)
        if container.contains(.incident) {
            incidentsMark = try container.decode(YAMLNode.self, forKey: .incident).mark
            incidents = try container.decode(OneOrMany<ExpectedIncident>.self, forKey: .incident).items
        }
        if container.allKeys.isEmpty {
            throw context.failure(.invalidValue,
                "expect needs one of: reply, send, forward, update_profile, state, rule, actions, incident (or "
                    + "write 'expect: nothing')", at: decoder.mark, path: decoder.codingPath)
        }
    }
}

extension Expectation {
    /// The keys that name a message action, in an expectation and in `actions:`; each
    /// is the action's name.
    static let messageKeys: [Key] = [.reply, .notice, .send, .forward]

    static func kind(of key: some CodingKey) throws -> ActionKind {
        guard let kind = ActionKind(rawValue: key.stringValue) else {
            preconditionFailure("'\(key.stringValue)' is not an action")
        }
        return kind
    }
}

/// One expected message of a message action: `TEXT` for those that answer in place;
/// `TEXT` (`ADDRESS` for `forward`) or `{to, text}` for those that name where they go.
private struct ExpectedAnyMessage: Decodable {
    var message: ExpectedMessage

    init(from decoder: any Decoder) throws {
        let kind = decoder.codingPath.last { ActionKind(rawValue: $0.stringValue) != nil }
            .flatMap { ActionKind(rawValue: $0.stringValue) }
        // Those that answer in place are told by their text alone.
        guard let kind, ObservedEffects.addressed.contains(kind) else {
            message = ExpectedMessage(to: nil, text: try decoder.decodeValue(String.self))
            return
        }
        guard try decoder.node().mapping == nil else {
            message = try decoder.decodeValue(ExpectedMessage.self)
            return
        }
        if kind == .forward {
            message = ExpectedMessage(to: try decoder.decodeValue(ExpectedAddress.self).address, text: nil)
        } else {
            message = ExpectedMessage(to: nil, text: try decoder.decodeValue(String.self))
        }
    }
}

/// An address in an expectation.
private struct ExpectedAddress: Decodable {
    var address: ConversationAddress

    init(from decoder: any Decoder) throws {
        let text = try decoder.decodeValue(String.self)
        guard let address = try decoder.botDecoding.conversation(text, at: decoder.mark, path: decoder.codingPath,
                                                                 joins: false) else {
            throw decoder.botDecoding.failure(
                .invalidValue, "'\(text)' is not an address (write user:NAME, group:NAME or room:NAME; on Matrix "
                    + "'#alias:server', '!id:server' or '@user:server')",
                at: decoder.mark, path: decoder.codingPath)
        }
        self.address = address
    }
}

extension ExpectedMessage: Decodable {
    enum Key: String, CodingKey, CaseIterable { case to, text }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(to: try container.decodeIfPresent(ExpectedAddress.self, forKey: .to)?.address,
                  text: try container.decodeIfPresent(String.self, forKey: .text))
    }
}

extension ExpectedProfile: Decodable {
    enum Key: String, CodingKey, CaseIterable { case nickname, signature, avatarURL = "avatarUrl", attrs }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(nickname: try container.decodeIfPresent(String.self, forKey: .nickname),
                  signature: try container.decodeIfPresent(String.self, forKey: .signature),
                  avatarURL: try container.decodeIfPresent(String.self, forKey: .avatarURL),
                  attrs: try container.decodeIfPresent([String: String].self, forKey: .attrs))
    }
}

extension ExpectedEffect: Decodable {
    enum Key: String, CodingKey, CaseIterable { case reply, notice, send, forward, updateProfile, http }

    /// One item of `actions:`: a mapping with one key.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let keys = container.allKeys
        guard keys.count == 1, let key = keys.first else {
            if keys.isEmpty, try !(decoder.node().mapping ?? []).isEmpty {
                throw BotDecoding.silentFailure(path: decoder.codingPath)
            }
            throw decoder.botDecoding.failure(.invalidValue,
                "an expected action has exactly one of: reply, send, forward, update_profile, http",
                at: decoder.mark, path: decoder.codingPath)
        }
        switch key {
        case .updateProfile: self = .updateProfile(try container.decode(ExpectedProfile.self, forKey: key))
        case .http: self = .http(try container.decode(String.self, forKey: key))
        default:
            self = .message(try Expectation.kind(of: key), try container.decode(ExpectedAnyMessage.self, forKey: key).message)
        }
    }
}

extension ExpectedIncident: Decodable {
    enum Key: String, CodingKey, CaseIterable { case to, group, title, state, firing, resolved, lines, replies, message }

    /// `{to, group, title, state, firing, resolved, lines, replies, message}`, each optional.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init()
        to = try container.decodeIfPresent(ExpectedAddress.self, forKey: .to)?.address
        group = try container.decodeIfPresent(String.self, forKey: .group)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        if let written = try container.decodeIfPresent(Located<String>.self, forKey: .state) {
            guard ["firing", "resolved"].contains(written.value) else {
                throw decoder.botDecoding.failure(.invalidValue, "an incident's state is firing or resolved, not "
                                                  + "'\(written.value)'", at: written.mark,
                                                  path: container.codingPath + [Key.state])
            }
            state = written.value
        }
        firing = try container.decodeIfPresent(Int.self, forKey: .firing)
        resolved = try container.decodeIfPresent(Int.self, forKey: .resolved)
        lines = try container.decodeIfPresent(OneOrMany<String>.self, forKey: .lines)?.items
        replies = try container.decodeIfPresent(OneOrMany<String>.self, forKey: .replies)?.items
        message = try container.decodeIfPresent(String.self, forKey: .message)
    }
}
