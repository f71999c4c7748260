import Foundation
import IMProtocol
import YAMLCoding

extension ConditionSet: Decodable {
    /// The matchers of a `when` mapping; the last group is planned and reported as such.
    enum Key: String, CodingKey, CaseIterable {
        case text, command, from, member, `in`, direct, group, room, mentionsMe, event, any, not
        case hours, days, timezone
        case webhook, match, absentFor
        case rate, repeated, links, mentions, state, schedule, missed, quiet
    }

    /// Decodes a `when` mapping, keeping the conditions in the order written.
    convenience init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        // `event` belongs to the rule; inside `any`/`not` it would be ambiguous.
        let nested = decoder.codingPath.contains { $0 is Key }
        let container = try decoder.container(keyedBy: Key.self)
        var conditions: [Condition] = []
        var events: EventFilter?
        var timeIndex: Int?
        var hours: [TimeWindow.Span] = []
        var days: Set<Int>?
        var zone: TimeZone?
        var triggers: [Key] = []
        var webhook: WebhookParts?

        for key in container.allKeys {
            switch key {
            case .text:
                conditions.append(.text(try container.decode(TextCondition.self, forKey: key)))
            case .command:
                conditions.append(.command(try container.decode(CommandCondition.self, forKey: key)))
            case .from:
                conditions.append(.from(try container.decode(SenderCondition.self, forKey: key)))
            case .member:
                conditions.append(.member(try container.decode(MemberCondition.self, forKey: key)))
            case .in:
                let patterns = try container.decode(OneOrMany<ConversationPattern>.self, forKey: key).items
                conditions.append(.conversation(.within(patterns, key: "in")))
            case .direct:
                conditions.append(.conversation(.kind(.direct, try container.decode(Bool.self, forKey: key))))
            case .group, .room:
                let spec = try container.decode(KindSpec.self, forKey: key)
                conditions.append(.conversation(spec.condition(key == .group ? .group : .room)))
            case .mentionsMe:
                conditions.append(.mentionsMe(try container.decode(Bool.self, forKey: key)))
            case .event:
                let spec = try container.decode(EventSpec.self, forKey: key)
                if nested {
                    throw context.failure(.invalidValue,
                        "'event' can only be set at the top of a rule's 'when', not inside 'any' or 'not'",
                        at: spec.mark, path: container.codingPath + [key])
                }
                events = spec.filter
            case .any:
                let node = try container.decode(YAMLNode.self, forKey: key)
                let alternatives = try container.decode([ConditionSet].self, forKey: key)
                if alternatives.isEmpty {
                    throw context.failure(.invalidValue, "'any' needs at least one alternative",
                                          at: node.mark, path: container.codingPath + [key])
                }
                conditions.append(.any(alternatives))
            case .not:
                conditions.append(.not(try container.decode(ConditionSet.self, forKey: key)))
            case .hours:
                timeIndex = timeIndex ?? conditions.count
                hours = try container.decode(OneOrMany<HoursSpec>.self, forKey: key).items.map(\.span)
            case .days:
                timeIndex = timeIndex ?? conditions.count
                days = try container.decode(DaysSpec.self, forKey: key).days
            case .timezone:
                let name = try container.decode(TimeZoneName.self, forKey: key)
                zone = TimeZoneDatabase.zone(name.identifier)
            case .rate, .repeated, .links, .mentions, .state:
                conditions.append(.moderation(try ModerationCondition.decode(key, in: container, nested: nested,
                                                                             context: context)))
            case .quiet where container.contains(.webhook), .absentFor:
                if key == .absentFor {
                    // Reported, then read as what it now is, so nothing else fails for it.
                    let node = try container.decode(YAMLNode.self, forKey: key)
                    context.report(.invalidValue, "'absent_for' is spelled 'quiet' now, as in every rule that waits "
                                   + "for nothing to come: write 'quiet: \(node.scalar?.text ?? "5m")'", at: node.mark)
                }
                // A webhook rule's `quiet: 5m`: nothing its `match` accepts came for that long.
                var parts = webhook ?? WebhookParts()
                try parts.decode(key, from: container, context)
                webhook = parts
            case .schedule, .missed, .quiet:
                triggers.append(key)
            case .webhook, .match:
                var parts = webhook ?? WebhookParts()
                try parts.decode(key, from: container, context)
                webhook = parts
            }
        }
        if !triggers.isEmpty {
            conditions.append(.moderation(try ModerationCondition.decodeTrigger(in: container, nested: nested, zone: zone,
                                                                          context: context)))
        }
        if let webhook {
            let trigger = try webhook.condition(nested: nested, others: !conditions.isEmpty || events != nil
                                                    || timeIndex != nil, decoder: decoder)
            conditions.append(.webhook(trigger))
        }
        if let timeIndex {
            conditions.insert(.time(TimeWindow(hours: hours, days: days, timezone: zone)), at: timeIndex)
        } else if zone != nil, !triggers.contains(.schedule) {
            throw context.failure(.invalidValue,
                                  "'timezone' in 'when' applies to 'hours', 'days' and 'schedule'; add one of them",
                                  at: decoder.mark, path: decoder.codingPath)
        }
        self.init(conditions: conditions, events: events)
    }
}

/// `webhook:`, `match:` and `quiet:`, read in any order, checked together.
private struct WebhookParts {
    var path: Located<String>?
    var match: PayloadMatch?
    var matchMark: YAMLMark?
    var quiet: Located<ConfigDuration>?

    mutating func decode(_ key: ConditionSet.Key, from container: KeyedDecodingContainer<ConditionSet.Key>,
                         _ context: BotDecoding) throws {
        switch key {
        case .webhook:
            let path = try container.decode(Located<String>.self, forKey: key)
            if !path.value.hasPrefix("/") {
                throw context.failure(.invalidValue, "webhook '\(path.value)' must be a path such as /hooks/alertmanager",
                                      at: path.mark, path: container.codingPath + [key])
            }
            self.path = path
        case .match:
            let node = try container.decode(YAMLNode.self, forKey: key)
            matchMark = node.mark
            do {
                match = try PayloadMatch(yaml: node, file: context.file)
            } catch {
                // Reported, and the rule stays a webhook rule, so nothing else fails for it.
                for problem in error.errors { context.record(problem) }
            }
        default:
            quiet = try container.decode(Located<ConfigDuration>.self, forKey: key)
        }
    }

    /// The trigger; `webhook` must be there, at the top of the rule, alone with its keys.
    func condition(nested: Bool, others: Bool, decoder: any Decoder) throws -> WebhookCondition {
        let context = decoder.botDecoding
        guard let path else {
            throw context.failure(.missingKey, "'match' needs 'webhook: PATH' (the webhooks entry it reads)",
                                  at: matchMark ?? decoder.mark,
                                  path: decoder.codingPath)
        }
        if nested {
            throw context.failure(.invalidValue, "'webhook' can only be set at the top of a rule's 'when'",
                                  at: path.mark, path: decoder.codingPath)
        }
        if others {
            throw context.failure(.invalidValue, "a webhook rule's 'when' holds only webhook, match and quiet "
                                  + "(a webhook has no text, sender or conversation)", at: decoder.mark,
                                  path: decoder.codingPath)
        }
        var interval: Duration?
        if let quiet {
            guard quiet.value.seconds >= 1 else {
                throw context.failure(.invalidValue, "a webhook rule's quiet must be at least 1s", at: quiet.mark,
                                      path: decoder.codingPath)
            }
            interval = .milliseconds(Int64(quiet.value.seconds * 1000))
        }
        return WebhookCondition(path: path.value, match: match, quiet: interval)
    }
}

/// `group: true`, `group: false`, `group: support` or `group: [support, ops]`.
private struct KindSpec: Decodable {
    var flag: Bool?
    var names: [String] = []

    init(from decoder: any Decoder) throws {
        if case .bool(let value)? = try decoder.node().scalarValue {
            flag = value
        } else {
            names = try decoder.decodeValue(OneOrMany<String>.self).items.map { $0.lowercased() }
        }
    }

    func condition(_ kind: ConversationKind) -> ConversationCondition {
        if let flag { return .kind(kind, flag) }
        let patterns: [ConversationPattern] = names.map { name in
            if name == "*" { return kind == .group ? .anyGroup : .anyRoom }
            return kind == .group ? .group(name) : .room(name)
        }
        return .within(patterns, key: kind.rawValue)
    }
}

/// `event: member_joined`, `event: [member_joined, member_left]` or `event: any`.
private struct EventSpec: Decodable {
    var filter: EventFilter
    var mark: YAMLMark

    init(from decoder: any Decoder) throws {
        mark = decoder.mark
        let names = try decoder.decodeValue(OneOrMany<Located<String>>.self).items
        let known = EventType.known.map(\.rawValue)
        var types = Set<EventType>()
        for name in names {
            if name.value == "any" {
                filter = .any
                return
            }
            guard known.contains(name.value) else {
                let hint = Suggestion.hint(for: name.value, among: known + ["any"])
                throw decoder.botDecoding.failure(
                    .invalidValue,
                    "unknown event '\(name.value)'\(hint) (events: \(known.joined(separator: ", ")), or any)",
                    at: name.mark, path: decoder.codingPath)
            }
            types.insert(EventType(rawValue: name.value))
        }
        filter = .only(types)
    }
}

/// `09:00-17:00`; `24:00` may end a span.
private struct HoursSpec: Decodable {
    var span: TimeWindow.Span

    init(from decoder: any Decoder) throws {
        let text = try decoder.decodeValue(String.self)
        let parts = text.split(separator: "-").map(\.trimmedWhitespace)
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]),
              start < 1440, start != end else {
            throw decoder.botDecoding.failure(
                .invalidValue, "'\(text)' is not a span of hours (write HH:MM-HH:MM, e.g. 09:00-17:00)",
                at: decoder.mark, path: decoder.codingPath)
        }
        span = TimeWindow.Span(start: start, end: end == 1440 ? 0 : end)
        if end == 1440 && start == 0 {
            // 00:00-24:00 is the whole day, which a wrapping span from 0 to 0 cannot say.
            span = TimeWindow.Span(start: 0, end: 1440)
        }
    }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...24).contains(hour), (0..<60).contains(minute), hour < 24 || minute == 0 else { return nil }
        return hour * 60 + minute
    }
}

/// `days: [mon, tue]`, `days: mon-fri`, `days: [mon..fri, sun]`, `weekdays`, `weekend`.
private struct DaysSpec: Decodable {
    var days: Set<Int>

    init(from decoder: any Decoder) throws {
        let items = try decoder.decodeValue(OneOrMany<Located<String>>.self).items
        days = []
        for item in items {
            guard let parsed = Self.parse(item.value) else {
                throw decoder.botDecoding.failure(
                    .invalidValue,
                    "'\(item.value)' is not a day or a range of days (write mon, tue, ..., sun, "
                        + "a range such as mon-fri, weekdays or weekend)",
                    at: item.mark, path: decoder.codingPath)
            }
            days.formUnion(parsed)
        }
    }

    static func parse(_ text: String) -> Set<Int>? {
        let lowered = text.trimmedWhitespace.lowercased()
        switch lowered {
        case "weekdays": return [0, 1, 2, 3, 4]
        case "weekend": return [5, 6]
        default: break
        }
        let separator = lowered.contains("..") ? ".." : "-"
        let parts = lowered.components(separatedBy: separator)
        if parts.count == 1 { return day(parts[0]).map { [$0] } }
        guard parts.count == 2, let first = day(parts[0]), let last = day(parts[1]) else { return nil }
        var result = Set<Int>()
        var current = first
        while true {
            result.insert(current)
            if current == last { break }
            current = (current + 1) % 7
        }
        return result
    }

    static func day(_ text: String) -> Int? {
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        let trimmed = text.trimmedWhitespace
        guard trimmed.count >= 3 else { return nil }
        return names.firstIndex { $0.hasPrefix(trimmed) }
    }
}
