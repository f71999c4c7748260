/// `YAMLValue` and `YAMLNode` as fields of `Codable` models.
///
/// With `YAMLDecoder` a field of either type receives the raw subtree (a `YAMLNode` keeps
/// its marks, tags and styles; its keys are exempt from the strict-key check). With other
/// decoders such as `JSONDecoder` the value is rebuilt from what that decoder offers.
extension YAMLValue: Codable {
    /// Takes the subtree as is from `YAMLDecoder`; rebuilds it from any other decoder.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? NodeDecoder {
            self = decoder.node.value
            return
        }
        if let keyed = try? decoder.container(keyedBy: TextKey.self) {
            let keys = keyed.allKeys.sorted { $0.stringValue < $1.stringValue }
            self = .object(try keys.map { Member($0.stringValue, try keyed.decode(YAMLValue.self, forKey: $0)) })
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [YAMLValue] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(YAMLValue.self)) }
            self = .array(items)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
            } else if let int = try? single.decode(Int.self) {
                self = .int(int)
            } else if let double = try? single.decode(Double.self) {
                self = .double(double)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    /// Encodes as the matching JSON-like value.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .int(let int):
            var container = encoder.singleValueContainer()
            try container.encode(int)
        case .double(let double):
            var container = encoder.singleValueContainer()
            try container.encode(double)
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let members):
            var container = encoder.container(keyedBy: TextKey.self)
            for member in members { try container.encode(member.value, forKey: TextKey(member.key)) }
        }
    }
}

extension YAMLNode: Codable {
    /// Takes the subtree, marks included, from `YAMLDecoder`; from any other decoder
    /// builds it from the value (marks unknown).
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? NodeDecoder {
            self = decoder.node
            return
        }
        self = YAMLNode(try YAMLValue(from: decoder))
    }

    /// Encodes the node's plain value.
    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}

extension YAMLNode {
    /// A node tree with the same value; strings are double-quoted so they stay strings.
    public init(_ value: YAMLValue) {
        switch value {
        case .null: self = .scalar("null")
        case .bool(let bool): self = .scalar(bool ? "true" : "false")
        case .int(let int): self = .scalar(String(int))
        case .double(let double):
            if double.isNaN {
                self = .scalar(".nan")
            } else if double.isInfinite {
                self = .scalar(double < 0 ? "-.inf" : ".inf")
            } else {
                self = .scalar(String(double))
            }
        case .string(let string): self = .scalar(string, style: .doubleQuoted)
        case .array(let items): self = .sequence(items.map(YAMLNode.init))
        case .object(let members):
            self = .mapping(members.map {
                Pair(key: .scalar($0.key, style: .doubleQuoted), value: YAMLNode($0.value))
            })
        }
    }
}
