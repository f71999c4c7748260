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

/// A compiled `regex:` for payload values.
public struct PayloadRegex: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: NSRegularExpression is immutable once made and documented thread-safe
    // for matching.
    private let regex: NSRegularExpression
    /// The pattern as written.
    public let description: String

    /// Compiles `pattern`; refuses invalid patterns and nested unbounded repetition
    /// (which can take exponential time on a crafted label).
    public init(_ pattern: String, ignoreCase: Bool = false) throws(PayloadPath.Invalid) {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: ignoreCase ? [.caseInsensitive] : []) else {
            throw PayloadPath.Invalid(description: "invalid regex '\(pattern)': \(RegexAnalysis.diagnose(pattern))")
        }
        if RegexAnalysis.hasNestedRepetition(pattern) {
            throw PayloadPath.Invalid(description: "regex '\(pattern)' repeats a group that itself repeats without bound; "
                                      + "rewrite it without the nested repetition")
        }
        self.regex = regex
        self.description = pattern
    }

    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, options: [], range: NSRange(location: 0, length: text.utf16.count)) != nil
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
