/// The `Decoder` handed to `init(from:)`: one node, its coding path, and the run.
struct NodeDecoder: Decoder {
    let node: YAMLNode
    let codingPath: [any CodingKey]
    let run: DecodingRun
    /// Collects the keyed containers opened for the value being decoded.
    let scope: Scope
    /// Keys the type being decoded declared through `YAMLKnownKeys`.
    var knownKeys: [String] = []

    var userInfo: [CodingUserInfoKey: Any] { run.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let pairs = node.mapping else {
            throw run.typeMismatch([String: Any].self, expected: "a mapping", node: node,
                                   path: codingPath)
        }
        var known = knownKeys
        if let caseIterable = Key.self as? any CaseIterable.Type {
            known += Self.keyNames(caseIterable).map(run.keys.textName)
        }
        let use = MappingUse(pairs: pairs, known: known)
        scope.mappings.append(use)
        run.mappings.append(use)
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, use: use))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let items = node.sequence else {
            throw run.typeMismatch([Any].self, expected: "a list", node: node, path: codingPath)
        }
        return UnkeyedContainer(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    /// A decoder for a child node, sharing this decoder's scope.
    func child(_ node: YAMLNode, key: any CodingKey) -> NodeDecoder {
        NodeDecoder(node: node, codingPath: codingPath + [key], run: run, scope: scope)
    }

    private static func keyNames<C: CaseIterable>(_ type: C.Type) -> [String] {
        C.allCases.compactMap { ($0 as? any CodingKey)?.stringValue }
    }
}

extension Decoder {
    /// Where the value being decoded starts, when decoding with `YAMLDecoder`; nil otherwise.
    public var yamlMark: YAMLMark? {
        (self as? NodeDecoder)?.node.mark
    }
}
