import Templates

/// `state: {raid: true, "spam.count": 3}`: the bot's state variables hold these values.
///
/// A key that is not set counts as `null`, and `false` also matches it, so `raid: false`
/// holds before any rule set `raid`. Keys reach into objects with dots.
final class StateCondition: Sendable {
    struct Expected: Sendable {
        let key: [String]
        let value: TemplateValue
    }

    let expected: [Expected]

    init(expected: [Expected]) {
        self.expected = expected
    }

    func matches(_ facts: inout EventFacts) -> Bool {
        expected.allSatisfy { Self.holds($0, in: facts.state) }
    }

    func failure(_ facts: inout EventFacts) -> String {
        for item in expected where !Self.holds(item, in: facts.state) {
            let actual = StatePath.value(at: item.key, in: facts.state)
            return "state: \(item.key.joined(separator: ".")) is \(StatePath.describe(actual)), "
                + "rule wants \(StatePath.describe(item.value))"
        }
        return "state: does not match"
    }

    var summary: String {
        "state " + expected.map { "\($0.key.joined(separator: ".")) = \($0.value.interpolatedText)" }
            .joined(separator: ", ")
    }

    static let cost = 3

    static func holds(_ item: Expected, in state: [String: TemplateValue]) -> Bool {
        let actual = StatePath.value(at: item.key, in: state) ?? .null
        if actual == item.value { return true }
        switch (item.value, actual) {
        case (.bool(false), .null), (.null, .bool(false)): return true
        // A number kept as text by `set` still equals the number.
        case (.int(let number), .string(let text)), (.string(let text), .int(let number)): return String(number) == text
        default: return false
        }
    }
}
