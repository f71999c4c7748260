import YAMLCoding

/// What an example expects of moderation, over all its repetitions (`times:`): how many
/// cases of each action (`delete: 1`, `mute: 2`, `warn`, `kick`, `ban`, `approve`...),
/// how many strikes were counted (`strike: 3`), and the cases' mod-log lines (`case:`).
struct ModerationExpectation: Sendable {
    /// Cases by action, as written (`slow_mode`).
    var counts: [(action: String, count: Int)] = []
    var strikes: Int?
    var cases: [String]?

    var isEmpty: Bool { counts.isEmpty && strikes == nil && cases == nil }

    /// The actions an example may count, with the expectation keys that name them.
    static let counted: [(Expectation.Key, String)] = [
        (.delete, "delete"), (.mute, "mute"), (.unmute, "unmute"), (.kick, "kick"), (.ban, "ban"), (.unban, "unban"),
        (.warn, "warn"), (.approve, "approve"), (.deny, "deny"), (.slowMode, "slow_mode"),
        (.joinPolicy, "join_policy"), (.report, "report"), (.undo, "undo"),
    ]

    init(from container: KeyedDecodingContainer<Expectation.Key>) throws {
        for (key, action) in Self.counted {
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
