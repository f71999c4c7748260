import YAMLCoding

/// What an example expects of moderation, over all its repetitions (`times:`): how many
/// cases of each action (`delete: 1`, `mute: 2`, `warn`, `kick`, `ban`, `approve`...),
/// how many strikes were counted (`strike: 3`), and the cases' mod-log lines (`case:`).
struct ModerationExpectation: Sendable {
    /// Cases by action, as written (`slow_mode`).
    var counts: [(action: String, count: Int)] = []
    var strikes: Int?
    var cases: [String]?
    /// The warnings' texts (`warn: TEXT` or a list), in order, instead of their count.
    var warnings: [String]?

    var isEmpty: Bool { counts.isEmpty && strikes == nil && cases == nil && warnings == nil }

    /// The actions an example may count, with the expectation keys that name them.
    static let counted: [(Expectation.Key, String)] = [
        (.delete, "delete"), (.mute, "mute"), (.unmute, "unmute"), (.kick, "kick"), (.ban, "ban"), (.unban, "unban"),
        (.warn, "warn"), (.approve, "approve"), (.deny, "deny"), (.slowMode, "slow_mode"),
        (.joinPolicy, "join_policy"), (.report, "report"), (.undo, "undo"),
    ]

    init(from container: KeyedDecodingContainer<Expectation.Key>) throws {
        for (key, action) in Self.counted {
            if key == .warn, let node = try container.decodeIfPresent(YAMLNode.self, forKey: key),
               !(node.scalarValue.map { if case .int = $0 { true } else { false } } ?? false) {
                warnings = try container.decode(OneOrMany<String>.self, forKey: key).items
                continue
            }
            if let count = try container.decodeIfPresent(Int.self, forKey: key) { counts.append((action, count)) }
        }
        strikes = try container.decodeIfPresent(Int.self, forKey: .strike)
        cases = try container.decodeIfPresent(OneOrMany<String>.self, forKey: .case)?.items
    }
}

extension ObservedEffects {
    /// Every way the moderation done differs from what the example expects.
    func moderationProblems(against expected: ModerationExpectation?) -> [String] {
        guard let expected, !expected.isEmpty else { return [] }
        var problems: [String] = []
        let cases = moderation.flatMap(\.cases)
        for (action, count) in expected.counts {
            let actual = cases.filter { $0.action == action }.count
            if actual != count {
                problems.append("expected \(count) \(action) case(s), got \(actual)" + firedNote)
            }
        }
        if let warnings = expected.warnings {
            let actual = moderation.flatMap(\.messages).filter { $0.action == .warn }.map(\.text)
            if actual != warnings {
                problems.append("expected warnings [" + warnings.map(Self.quote).joined(separator: ", ") + "], got ["
                                + actual.map(Self.quote).joined(separator: ", ") + "]" + firedNote)
            }
        }
        if let strikes = expected.strikes {
            let actual = moderation.filter { $0.strike != nil }.count
            if actual != strikes { problems.append("expected \(strikes) strike(s), got \(actual)" + firedNote) }
        }
        if let lines = expected.cases {
            let actual = cases.map(\.line)
            if actual != lines {
                problems.append("expected case lines [" + lines.map(Self.quote).joined(separator: ", ") + "], got ["
                                + actual.map(Self.quote).joined(separator: ", ") + "]")
            }
        }
        return problems
    }
}
