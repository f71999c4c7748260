import Foundation
import Templates

/// One test a `match:` entry applies to the values its path reaches.
public enum PayloadCondition: Sendable {
    /// Some value's text equals this (`status: firing`; numbers and booleans compare by
    /// their JSON text, so `truncatedAlerts: 0` works).
    case equals(String)
    /// Some value's text contains a match of the pattern (unanchored, like `text: regex`;
    /// write `^…$` for a whole-value match, as Alertmanager's `=~` does).
    case regex(PayloadRegex)
    /// The path reaches a value (`true`) or reaches none (`false`).
    case present(Bool)
    /// Some value's text is one of these.
    case oneOf([String])

    /// What the condition asks, for `explain`: `equals 'critical'`, `in [critical, page]`.
    public var summary: String {
        switch self {
        case .equals(let value): "equals '\(value)'"
        case .regex(let regex): "matches regex '\(regex.description)'"
        case .present(let wanted): wanted ? "is present" : "is absent"
        case .oneOf(let options): "in [" + options.joined(separator: ", ") + "]"
        }
    }

    /// Whether the condition holds for what a path reached.
    public func holds(for values: [TemplateValue]) -> Bool {
        switch self {
        case .present(let wanted):
            return values.isEmpty != wanted
        case .equals(let expected):
            return values.contains { $0.scalarText == expected }
        case .oneOf(let options):
            return values.contains { value in value.scalarText.map(options.contains) ?? false }
        case .regex(let regex):
            return values.contains { value in value.scalarText.map(regex.matches) ?? false }
        }
    }
}

/// A compiled `regex:` for payload values: the same engine, shape check and match limit
/// as a rule's `regex:` (`PCRE2Pattern`, `RegexHazards`), so a crafted label can never
/// stall the bridge.
public struct PayloadRegex: Sendable, CustomStringConvertible {
    private let regex: PCRE2Pattern
    /// The pattern as written.
    public let description: String

    /// Compiles `pattern`; refuses invalid patterns and shapes that can backtrack
    /// exponentially (nested unbounded repetition, overlapping alternatives).
    public init(_ pattern: String, ignoreCase: Bool = false) throws(PayloadPath.Invalid) {
        do {
            regex = try PCRE2Pattern(pattern, caseless: ignoreCase)
        } catch {
            let reason = RegexAnalysis.diagnose(pattern) ?? "\(error.message) (at character \(error.offset + 1))"
            throw PayloadPath.Invalid(description: "invalid regex '\(pattern)': \(reason)")
        }
        if let hazard = RegexHazards.find(in: pattern) {
            throw PayloadPath.Invalid(description: "regex '\(pattern)' \(hazard)")
        }
        self.description = pattern
    }

    /// Whether `text` contains a match; a match stopped by the limit counts as none.
    func matches(_ text: String) -> Bool {
        if case .match = regex.firstMatch(in: Array(text.utf8)) { return true }
        return false
    }
}

extension TemplateValue {
    /// The text a scalar compares by; nil for lists and objects.
    var scalarText: String? {
        switch self {
        case .array, .object, .null: nil
        default: interpolatedText
        }
    }
}
