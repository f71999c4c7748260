import Foundation
import IMProtocol
import Templates
import YAMLCoding

extension ModerationCondition {
    /// Decodes the moderation matcher written under `key` of a `when` mapping.
    ///
    /// - Parameter nested: whether the mapping is inside `any` or `not`, where counting
    ///   matchers (`rate`, `repeated`) are refused: what they count would be unclear.
    static func decode(_ key: ConditionSet.Key, in container: KeyedDecodingContainer<ConditionSet.Key>,
                       nested: Bool, context: BotDecoding) throws -> ModerationCondition {
        let node = try container.decode(YAMLNode.self, forKey: key)
        let path = container.codingPath + [key]
        if nested, key == .rate || key == .repeated {
            throw context.failure(.invalidValue,
                "'\(key.stringValue)' can only be set at the top of a rule's 'when', not inside 'any' or 'not'",
                at: node.mark, path: path)
        }
        switch key {
        case .rate:
            let spec = try container.decode(RateSpec.self, forKey: key)
            return .window(WindowCondition(kind: .rate(per: spec.per, moreThan: spec.moreThan),
                                           within: spec.within, id: node.mark.description))
        case .repeated:
            let spec = try container.decode(RepeatedSpec.self, forKey: key)
            return .window(WindowCondition(kind: .repeated(times: spec.times), within: spec.within,
                                           id: node.mark.description))
        case .links, .mentions:
            let spec = try container.decode(CountSpec.self, forKey: key)
            return .count(CountCondition(counted: key == .links ? .links : .mentions, atLeast: spec.atLeast))
        case .state:
            let entries = try container.decode(OrderedMap<YAMLValue>.self, forKey: key)
            var expected: [StateCondition.Expected] = []
            for entry in entries.entries {
                guard let stateKey = StateKey(entry.key) else {
                    throw context.failure(.invalidValue, StateKey.invalidMessage(entry.key),
                                          at: entries.keyMarks[entry.key] ?? node.mark, path: path)
                }
                expected.append(StateCondition.Expected(key: stateKey.path, value: TemplateValue(yaml: entry.value)))
            }
            if expected.isEmpty {
                throw context.failure(.invalidValue, "'state' needs at least one key and value (e.g. state: { raid: true })",
                                      at: node.mark, path: path)
            }
            return .state(StateCondition(expected: expected))
        default:
            throw context.failure(.invalidValue, "'\(key.stringValue)' is not a moderation matcher", at: node.mark,
                                  path: path)
        }
    }
}

/// A window of a counting matcher: longer than nothing, at most a week (counters are
/// kept in memory).
private func windowMilliseconds(_ duration: Located<ConfigDuration>, _ decoder: any Decoder,
                                _ key: any CodingKey) throws -> Int64 {
    guard duration.value.seconds >= 0.001, duration.value.seconds <= 7 * 86400 else {
        throw decoder.botDecoding.failure(.invalidValue, "'within' must be from 1ms to 7d",
                                          at: duration.mark, path: decoder.codingPath + [key])
    }
    return Int64((duration.value.seconds * 1000).rounded())
}

/// `rate: {per: sender|conversation, more_than: N, within: DURATION}`.
private struct RateSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case per, moreThan, within }

    var per: WindowCondition.Subject
    var moreThan: Int
    var within: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let subject = try container.decodeIfPresent(Located<String>.self, forKey: .per)
        if let subject {
            guard let parsed = WindowCondition.Subject(rawValue: subject.value) else {
                throw decoder.botDecoding.failure(
                    .invalidValue, "'per' is sender or conversation, not '\(subject.value)'", at: subject.mark,
                    path: container.codingPath + [Key.per])
            }
            per = parsed
        } else {
            per = .sender
        }
        let limit = try container.decode(Located<Int>.self, forKey: .moreThan)
        guard (0...10_000).contains(limit.value) else {
            throw decoder.botDecoding.failure(.invalidValue, "'more_than' must be from 0 to 10000", at: limit.mark,
                                              path: container.codingPath + [Key.moreThan])
        }
        moreThan = limit.value
        within = try windowMilliseconds(container.decode(Located<ConfigDuration>.self, forKey: .within), decoder,
                                        Key.within)
    }
}

/// `repeated: {times: N, within: DURATION}`.
private struct RepeatedSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case times, within }

    var times: Int
    var within: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let times = try container.decode(Located<Int>.self, forKey: .times)
        guard (2...1_000).contains(times.value) else {
            throw decoder.botDecoding.failure(.invalidValue, "'times' must be from 2 to 1000 (the same text twice or more)",
                                              at: times.mark, path: container.codingPath + [Key.times])
        }
        self.times = times.value
        within = try windowMilliseconds(container.decode(Located<ConfigDuration>.self, forKey: .within), decoder,
                                        Key.within)
    }
}

/// `links: N` (at least N) or `links: {more_than: N}`.
private struct CountSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case moreThan, atLeast }

    var atLeast: Int

    init(from decoder: any Decoder) throws {
        let located: Located<Int>
        if try decoder.node().mapping != nil {
            let container = try decoder.container(keyedBy: Key.self)
            if let more = try container.decodeIfPresent(Located<Int>.self, forKey: .moreThan) {
                located = Located(more.value + 1, mark: more.mark)
            } else if let least = try container.decodeIfPresent(Located<Int>.self, forKey: .atLeast) {
                located = least
            } else {
                throw decoder.botDecoding.failure(.invalidValue, "write a number (at least that many) or {more_than: N}",
                                                  at: decoder.mark, path: decoder.codingPath)
            }
        } else {
            located = try decoder.decodeValue(Located<Int>.self)
        }
        guard (1...10_000).contains(located.value) else {
            throw decoder.botDecoding.failure(.invalidValue, "the count must be at least 1 (leave the matcher out otherwise)",
                                              at: located.mark, path: decoder.codingPath)
        }
        atLeast = located.value
    }
}

extension ModerationCondition {
    /// `schedule:` (with `missed:` and the `when`'s `timezone:`) or `quiet:`.
    static func decodeTrigger(in container: KeyedDecodingContainer<ConditionSet.Key>, nested: Bool, zone: TimeZone?,
                        context: BotDecoding) throws -> ModerationCondition {
        let path = container.codingPath
        if nested {
            let key = [ConditionSet.Key.schedule, .quiet, .missed].first { container.contains($0) } ?? .schedule
            throw context.failure(.invalidValue,
                "'\(key.stringValue)' can only be set at the top of a rule's 'when', not inside 'any' or 'not'",
                at: try container.decode(YAMLNode.self, forKey: key).mark, path: path + [key])
        }
        let missed = try container.decodeIfPresent(Located<String>.self, forKey: .missed)
        if let schedule = try container.decodeIfPresent(Located<String>.self, forKey: .schedule) {
            if container.contains(.quiet) {
                throw context.failure(.invalidValue, "a rule has one trigger: 'schedule' or 'quiet', not both",
                                      at: schedule.mark, path: path + [ConditionSet.Key.schedule])
            }
            let cron: CronSchedule
            do {
                cron = try CronSchedule(schedule.value)
            } catch {
                throw context.failure(.invalidValue, error.message, at: schedule.mark,
                                      path: path + [ConditionSet.Key.schedule])
            }
            var policy = TriggerCondition.MissedRuns.skip
            if let missed {
                guard let parsed = TriggerCondition.MissedRuns(rawValue: missed.value) else {
                    throw context.failure(.invalidValue, "missed is skip, once or all, not '\(missed.value)'",
                                          at: missed.mark, path: path + [ConditionSet.Key.missed])
                }
                policy = parsed
            }
            return .trigger(TriggerCondition(kind: .schedule(cron, zone: zone, missed: policy),
                                             id: schedule.mark.description))
        }
        if let missed {
            throw context.failure(.invalidValue, "'missed' applies to 'schedule'; add one", at: missed.mark,
                                  path: path + [ConditionSet.Key.missed])
        }
        let node = try container.decode(YAMLNode.self, forKey: .quiet)
        let spec = try container.decode(QuietSpec.self, forKey: .quiet)
        return .trigger(TriggerCondition(kind: .quiet(events: spec.events, within: spec.within), id: node.mark.description))
    }
}

/// `quiet: {event: member_joined, for: 10m}` (`event` may be a list).
private struct QuietSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable { case event, `for` }

    var events: Set<EventType>
    var within: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let known = EventType.known.map(\.rawValue)
        events = []
        for name in try container.decode(OneOrMany<Located<String>>.self, forKey: .event).items {
            guard known.contains(name.value), name.value != "kicked_out" else {
                throw decoder.botDecoding.failure(
                    .invalidValue, "unknown event '\(name.value)'\(Suggestion.hint(for: name.value, among: known))",
                    at: name.mark, path: container.codingPath + [Key.event])
            }
            events.insert(EventType(rawValue: name.value))
        }
        let duration = try container.decode(Located<ConfigDuration>.self, forKey: .for)
        guard duration.value.seconds >= 1, duration.value.seconds <= 7 * 86400 else {
            throw decoder.botDecoding.failure(.invalidValue, "'for' must be from 1s to 7d", at: duration.mark,
                                              path: container.codingPath + [Key.for])
        }
        within = Int64(duration.value.seconds * 1000)
    }
}
