/// A plain, JSON-like value: what a YAML subtree means once tags, styles and marks are
/// dropped. Object keys keep their source order.
public enum YAMLValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([YAMLValue])
    case object([Member])

    /// One key/value entry of an object.
    public struct Member: Sendable, Hashable {
        /// The key's text.
        public var key: String
        /// The value.
        public var value: YAMLValue

        /// Creates a member.
        public init(_ key: String, _ value: YAMLValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value of an object's first member with this key; nil otherwise.
    public subscript(key: String) -> YAMLValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The element of an array at this index; nil when out of range or not an array.
    public subscript(index: Int) -> YAMLValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }
}

extension YAMLValue {
    /// Converts a node tree; scalars resolve per the core schema, mapping keys become their
    /// text (a non-scalar key becomes its compact flow form, e.g. `[a, b]`).
    public init(_ node: YAMLNode) {
        switch node.content {
        case .scalar:
            self = node.scalarValue ?? .null
        case .sequence(let items):
            self = .array(items.map(YAMLValue.init))
        case .mapping(let pairs):
            self = .object(pairs.map { Member($0.key.keyText, YAMLValue($0.value)) })
        }
    }
}

extension YAMLNode {
    /// The plain value of this subtree.
    public var value: YAMLValue { YAMLValue(self) }

    /// The text used when this node is a mapping key.
    var keyText: String {
        switch content {
        case .scalar(let scalar): return scalar.text
        case .sequence(let items): return "[" + items.map(\.keyText).joined(separator: ", ") + "]"
        case .mapping(let pairs):
            return "{" + pairs.map { "\($0.key.keyText): \($0.value.keyText)" }
                .joined(separator: ", ") + "}"
        }
    }
}

extension YAMLValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `1` is `.int(1)`.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// `1.5` is `.double(1.5)`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `"a"` is `.string("a")`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `[1, "a"]` is an array.
    public init(arrayLiteral elements: YAMLValue...) { self = .array(elements) }
    /// Keeps the literal's order.
    public init(dictionaryLiteral elements: (String, YAMLValue)...) {
        self = .object(elements.map { Member($0.0, $0.1) })
    }
}
