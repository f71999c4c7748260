/// A decoded value together with where it starts in the YAML text.
///
/// For checks made after decoding that should still point at the source:
/// `YAMLError(.invalidValue, "...", file: file, mark: rule.name.mark)`.
public struct Located<Value> {
    /// The decoded value.
    public var value: Value
    /// Where the value starts; `YAMLMark.unknown` when decoded by another decoder.
    public var mark: YAMLMark

    /// Pairs a value with a mark.
    public init(_ value: Value, mark: YAMLMark) {
        self.value = value
        self.mark = mark
    }
}

extension Located: Decodable where Value: Decodable {
    /// Decodes the value and notes where it starts.
    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? .unknown
        value = try decoder.singleValueContainer().decode(Value.self)
    }
}

extension Located: Encodable where Value: Encodable {
    /// Encodes just the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension Located: Sendable where Value: Sendable {}
extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
