import YAMLCoding

/// A mapping with free-form keys decoded into values of one type, in the order written
/// (Swift dictionaries forget it; headers, JSON bodies and reports should not).
struct OrderedMap<Value: Decodable & Sendable>: Decodable {
    var entries: [OrderedEntry<Value>]
    /// Where each key is written.
    var keyMarks: [String: YAMLMark]

    init(from decoder: any Decoder) throws {
        let node = try decoder.node()
        let values = try decoder.decodeValue([String: Value].self)
        var entries: [OrderedEntry<Value>] = []
        var marks: [String: YAMLMark] = [:]
        for pair in node.mapping ?? [] {
            guard let key = pair.key.scalar?.text, let value = values[key] else { continue }
            entries.append(OrderedEntry(key: key, value: value))
            marks[key] = pair.key.mark
        }
        self.entries = entries
        self.keyMarks = marks
    }
}

extension ValueTemplate: Decodable {
    /// Any YAML value; strings become templates.
    init(from decoder: any Decoder) throws {
        let node = try decoder.node()
        switch node.content {
        case .sequence:
            self = .array(try decoder.decodeValue([ValueTemplate].self))
        case .mapping:
            self = .object(try decoder.decodeValue(OrderedMap<ValueTemplate>.self).entries)
        case .scalar:
            switch node.scalarValue {
            case .null?, nil: self = .null
            case .bool(let value)?: self = .bool(value)
            case .int(let value)?: self = .int(value)
            case .double(let value)?: self = .double(value)
            case .string?, .array?, .object?: self = .string(try decoder.decodeValue(TemplateText.self))
            }
        }
    }
}
