import IMProtocol
import YAMLCoding

extension ModerationSpec {
    /// Decodes the moderation action written under `key` of a `do` item.
    static func decode(_ key: Action.Key, in container: KeyedDecodingContainer<Action.Key>,
                       context: BotDecoding) throws -> ModerationSpec {
        let node = try container.decode(YAMLNode.self, forKey: key)
        let path = container.codingPath + [key]
        func fail(_ message: String, _ mark: YAMLMark? = nil) -> DecodingError {
            context.failure(.invalidValue, message, at: mark ?? node.mark, path: path)
        }
        func flag() throws {
            guard case .bool(true)? = node.scalarValue else {
                throw fail("write '\(Action.text(key)): true'")
            }
        }
        switch key {
        case .delete:
            guard node.scalar?.text == "message" || node.scalarValue == .bool(true) else {
                throw fail("write 'delete: message' (the event's message, deleted for everyone)")
            }
            return .delete
        case .mute, .unmute, .kick, .ban, .unban:
            let action: ModerationAction = switch key {
            case .mute: .mute
            case .unmute: .unmute
            case .kick: .kick
            case .ban: .ban
            default: .unban
            }
            return .member(action, try container.decode(MemberActSpecWire.self, forKey: key).spec(action, fail))
        case .warn:
            return .warn(try container.decode(TemplateText.self, forKey: key))
        case .approve, .deny:
            if node.scalar?.text == "all" { return .allJoinRequests(approve: key == .approve, group: nil) }
            if node.mapping != nil {
                let spec = try container.decode(AllRequestsWire.self, forKey: key)
                guard spec.all else { throw fail("write '\(Action.text(key)): all', or {all: true, group: NAME}") }
                return .allJoinRequests(approve: key == .approve, group: spec.group)
            }
            guard case .bool(true)? = node.scalarValue else {
                throw fail("write '\(Action.text(key)): true' (the event's join request) or '\(Action.text(key)): all' "
                           + "(every waiting request)")
            }
            return .joinRequest(approve: key == .approve)
        case .slowMode:
            let spec = try container.decode(SettingWire.self, forKey: key)
            let interval: ConfigDuration
            if spec.value.value == "off" {
                interval = ConfigDuration(seconds: 0)
            } else if let parsed = ConfigDuration(spec.value.value), parsed.seconds >= 1,
                      parsed.seconds <= Double(GroupSettings.slowModeLimit), parsed.seconds == parsed.seconds.rounded() {
                interval = parsed
            } else {
                throw fail("slow_mode is whole seconds from 1s to 1d, or off", spec.value.mark)
            }
            return .slowMode(interval, group: spec.group)
        case .joinPolicy:
            let spec = try container.decode(SettingWire.self, forKey: key)
            guard let policy = JoinPolicy(rawValue: spec.value.value) else {
                throw fail("join_policy is open, approval or invite, not '\(spec.value.value)'", spec.value.mark)
            }
            return .joinPolicy(policy, group: spec.group)
        case .strike:
            return .strike(try container.decode(StrikeSpec.self, forKey: key))
        case .report:
            if node.scalarValue == .bool(true) { return .report(nil, kind: nil) }
            if node.mapping != nil {
                let spec = try container.decode(ReportWire.self, forKey: key)
                if let kind = spec.kind, !kind.value.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") })
                    || (spec.kind?.value.isEmpty ?? false) || (spec.kind?.value.count ?? 0) > 32 {
                    throw fail("a report's case is a word such as raid (letters, _ and -)", spec.kind?.mark)
                }
                return .report(spec.text, kind: spec.kind?.value)
            }
            return .report(try container.decode(TemplateText.self, forKey: key), kind: nil)
        case .verify:
            return .verify(try container.decode(VerifySpec.self, forKey: key))
        case .case:
            return .showCase(try container.decode(TemplateText.self, forKey: key))
        case .undo:
            return .undo(try container.decode(TemplateText.self, forKey: key))
        case .strikes:
            return .showStrikes(try container.decode(TemplateText.self, forKey: key))
        default:
            throw fail("'\(Action.text(key))' is not a moderation action")
        }
    }
}

/// `approve: {all: true, group: lobby}`.
private struct AllRequestsWire: Decodable {
    enum Key: String, CodingKey, CaseIterable { case all, group }

    var all: Bool
    var group: TemplateText?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        all = try container.decodeIfPresent(Bool.self, forKey: .all) ?? false
        group = try container.decodeIfPresent(TemplateText.self, forKey: .group)
    }
}

/// `report: {text: TEXT, case: raid}`.
private struct ReportWire: Decodable {
    enum Key: String, CodingKey, CaseIterable { case text, `case` }

    var text: TemplateText?
    var kind: Located<String>?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        text = try container.decodeIfPresent(TemplateText.self, forKey: .text)
        kind = try container.decodeIfPresent(Located<String>.self, forKey: .case)
    }
}

/// `mute: 10m`, `mute: true`, or `mute: {duration, user, group, reason}`.
private struct MemberActSpecWire: Decodable {
    enum Key: String, CodingKey, CaseIterable { case duration, user, group, reason }

    var duration: Located<ConfigDuration>?
    var user: TemplateText?
    var group: TemplateText?
    var reason: TemplateText?
    var mark: YAMLMark
    var flag: Bool?

    init(from decoder: any Decoder) throws {
        mark = decoder.mark
        let node = try decoder.node()
        if node.mapping == nil {
            if case .bool(let value)? = node.scalarValue {
                flag = value
            } else {
                duration = try decoder.decodeValue(Located<ConfigDuration>.self)
            }
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        duration = try container.decodeIfPresent(Located<ConfigDuration>.self, forKey: .duration)
        user = try container.decodeIfPresent(TemplateText.self, forKey: .user)
        group = try container.decodeIfPresent(TemplateText.self, forKey: .group)
        reason = try container.decodeIfPresent(TemplateText.self, forKey: .reason)
    }

    func spec(_ action: ModerationAction, _ fail: (String, YAMLMark?) -> DecodingError) throws -> MemberActSpec {
        if flag == false { throw fail("'\(action.rawValue): false' does nothing; remove it", mark) }
        if let duration {
            guard action.takesDuration else {
                throw fail("'\(action.rawValue)' takes no duration (only mute and ban do)", duration.mark)
            }
            guard duration.value.seconds >= 1 else {
                throw fail("a \(action.rawValue) lasts at least 1s (leave the duration out for: until lifted)", duration.mark)
            }
        }
        return MemberActSpec(user: user, group: group, duration: duration?.value, reason: reason)
    }
}

/// `slow_mode: 30s` / `join_policy: approval`, or `{value, group}` with the value under
/// `interval` or `policy`.
private struct SettingWire: Decodable {
    enum Key: String, CodingKey, CaseIterable { case interval, policy, group }

    var value: Located<String>
    var group: TemplateText?

    init(from decoder: any Decoder) throws {
        guard try decoder.node().mapping != nil else {
            value = try decoder.decodeValue(Located<String>.self)
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        guard let found = try container.decodeIfPresent(Located<String>.self, forKey: .interval)
                ?? container.decodeIfPresent(Located<String>.self, forKey: .policy) else {
            throw decoder.botDecoding.failure(.missingKey, "write the value under 'interval' (slow_mode) or 'policy' "
                                              + "(join_policy)", at: decoder.mark, path: decoder.codingPath)
        }
        value = found
        group = try container.decodeIfPresent(TemplateText.self, forKey: .group)
    }
}

extension StrikeSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case counter, points, decay, escalate }

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: Key.self)
        let counter = try container.decode(Located<String>.self, forKey: .counter)
        guard StateKey(counter.value)?.path.count == 1 else {
            throw context.failure(.invalidValue, "a strike counter is a name of letters, digits, '_' and '-'",
                                  at: counter.mark, path: container.codingPath + [Key.counter])
        }
        let points = try container.decodeIfPresent(Located<Int>.self, forKey: .points)
        if let points, !(1...100).contains(points.value) {
            throw context.failure(.invalidValue, "points must be from 1 to 100", at: points.mark,
                                  path: container.codingPath + [Key.points])
        }
        let decay = try container.decodeIfPresent(Located<ConfigDuration>.self, forKey: .decay)
        if let decay, decay.value.seconds < 1 {
            throw context.failure(.invalidValue, "decay must be at least 1s (leave it out: points never fall off)",
                                  at: decay.mark, path: container.codingPath + [Key.decay])
        }
        let steps = try container.decodeIfPresent([EscalationStep].self, forKey: .escalate) ?? []
        self.init(counter: counter.value, points: points?.value ?? 1, decay: decay?.value, escalate: steps)
    }
}

extension EscalationStep: Decodable {
    enum Key: String, CodingKey, CaseIterable { case warn, mute, kick, ban }

    /// `warn`, `kick`, `mute`, `ban`, or `{mute: 10m}`, `{ban: 1d}`, `{warn: TEXT}`.
    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let node = try decoder.node()
        let steps = "warn, {mute: DURATION}, kick or {ban: DURATION}"
        if let name = node.scalar?.text, node.mapping == nil {
            switch name {
            case "warn": self = .warn(nil)
            case "mute": self = .mute(nil)
            case "kick": self = .kick
            case "ban": self = .ban(nil)
            default:
                let hint = Suggestion.hint(for: name, among: ["warn", "mute", "kick", "ban"])
                throw context.failure(.invalidValue, "unknown escalation step '\(name)'\(hint) (write \(steps))",
                                      at: node.mark, path: decoder.codingPath)
            }
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw context.failure(.invalidValue, "an escalation step has one key (write \(steps))", at: node.mark,
                                  path: decoder.codingPath)
        }
        switch key {
        case .warn: self = .warn(try container.decode(TemplateText.self, forKey: key))
        case .mute: self = .mute(try container.decode(ConfigDuration.self, forKey: key))
        case .ban: self = .ban(try container.decode(ConfigDuration.self, forKey: key))
        case .kick:
            throw context.failure(.invalidValue, "write 'kick' alone (it takes no value)", at: node.mark,
                                  path: decoder.codingPath)
        }
    }
}

extension VerifySpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case text, answer, within, fail }

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: Key.self)
        let text = try container.decode(TemplateText.self, forKey: .text)
        let answer = try container.decode(Located<String>.self, forKey: .answer)
        guard !TextNormalizer.normalized(answer.value).bytes.isEmpty else {
            throw context.failure(.invalidValue, "the answer needs letters or digits", at: answer.mark,
                                  path: container.codingPath + [Key.answer])
        }
        let within = try container.decodeIfPresent(Located<ConfigDuration>.self, forKey: .within)
        if let within, !(60...(7 * 86400)).contains(within.value.seconds) {
            throw context.failure(.invalidValue, "within must be from 1m to 7d", at: within.mark,
                                  path: container.codingPath + [Key.within])
        }
        let fail = try container.decodeIfPresent(Located<String>.self, forKey: .fail)
        var action = ModerationAction.kick
        if let fail {
            guard fail.value == "kick" || fail.value == "ban" else {
                throw context.failure(.invalidValue, "fail is kick or ban, not '\(fail.value)'", at: fail.mark,
                                      path: container.codingPath + [Key.fail])
            }
            action = fail.value == "ban" ? .ban : .kick
        }
        self.init(text: text, answer: answer.value, within: within?.value ?? ConfigDuration(seconds: 600), fail: action)
    }
}
