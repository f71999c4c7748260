/// A value a template can read: the JSON data model, built from Swift literals or JSON.
///
/// Objects are unordered dictionaries; Mustache only ever looks keys up, never iterates
/// an object, so key order carries no meaning.
public enum TemplateValue: Sendable, Hashable {
    /// An absent value; falsey, and interpolates as nothing.
    case null
    /// A boolean; `false` is falsey.
    case bool(Bool)
    /// A whole number; always truthy, interpolated without a fractional part.
    case int(Int)
    /// A floating-point number; always truthy.
    case double(Double)
    /// Text; the empty string is falsey.
    case string(String)
    /// A list; a section repeats once per element, and an empty list is falsey.
    case array([TemplateValue])
    /// A keyed object; a section over it pushes it as the context for inner names.
    case object([String: TemplateValue])
}

extension TemplateValue {
    /// The member named `key` when this value is an object, otherwise `nil`.
    public subscript(key: String) -> TemplateValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// Whether a section over this value renders (or an inverted section does not).
    ///
    /// Falsey are `null`, `false`, the empty string and the empty list; every number,
    /// including 0, is truthy so that counts render, and every object is truthy.
    public var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let value): value
        case .string(let value): !value.isEmpty
        case .array(let items): !items.isEmpty
        case .int, .double, .object: true
        }
    }

    /// The text a variable tag inserts for this value, before any escaping.
    ///
    /// Integral doubles print without `.0` (`2.0` → `2`), other doubles use Swift's
    /// shortest round-trip form (`1.21`); a list joins its elements with `", "`;
    /// `null` and objects render as nothing.
    public var interpolatedText: String {
        switch self {
        case .null, .object: ""
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): Self.format(value)
        case .string(let value): value
        case .array(let items): items.map(\.interpolatedText).joined(separator: ", ")
        }
    }

    /// Formats a double the way JSON wrote it, without a spurious `.0`.
    static func format(_ value: Double) -> String {
        // 2^53: beyond it not every integer is representable, so keep Swift's form.
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return value.description
    }

    /// The value a dotted-name component selects from this value, if any.
    ///
    /// `length` on a list is its element count, and a number `N` its `N`th element,
    /// counting from 1 (see ``Template``); a real key on an object always wins, since only
    /// lists have these pseudo-properties.
    public func member(_ key: String) -> TemplateValue? {
        switch self {
        case .object(let members): members[key]
        case .array(let items) where key == "length": .int(items.count)
        case .array(let items):
            Self.position(key).flatMap { $0 <= items.count ? items[$0 - 1] : nil }
        default: nil
        }
    }

    /// `1`, `2`, ...: a list position written in a dotted name; nil for anything else
    /// (`0`, `01`, `-1`, `x`).
    public static func position(_ key: String) -> Int? {
        guard let first = key.utf8.first, first != UInt8(ascii: "0"), key.utf8.count <= 9,
              key.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
        return Int(key)
    }
}

extension TemplateValue: ExpressibleByNilLiteral {
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension TemplateValue: ExpressibleByBooleanLiteral {
    /// Creates a boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension TemplateValue: ExpressibleByIntegerLiteral {
    /// Creates a whole number.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension TemplateValue: ExpressibleByFloatLiteral {
    /// Creates a floating-point number.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension TemplateValue: ExpressibleByStringLiteral {
    /// Creates text.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension TemplateValue: ExpressibleByArrayLiteral {
    /// Creates a list.
    public init(arrayLiteral elements: TemplateValue...) { self = .array(elements) }
}

extension TemplateValue: ExpressibleByDictionaryLiteral {
    /// Creates an object; when a key repeats, the last value wins.
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
