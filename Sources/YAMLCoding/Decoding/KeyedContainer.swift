/// Decodes a mapping's values by key, recording which keys were asked for.
struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    let use: MappingUse
    /// Key text to pair index; the loader already rejected duplicate keys.
    private let index: [String: Int]

    init(decoder: NodeDecoder, use: MappingUse) {
        self.decoder = decoder
        self.use = use
        var index: [String: Int] = [:]
        for (position, pair) in use.pairs.enumerated() {
            let name = decoder.run.keys.swiftName(pair.key.keyText)
            if index[name] == nil { index[name] = position }
        }
        self.index = index
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var run: DecodingRun { decoder.run }

    /// The keys this `Key` type can represent; reading them counts as asking for each.
    var allKeys: [Key] {
        use.pairs.compactMap { pair in
            guard let key = Key(stringValue: run.keys.swiftName(pair.key.keyText)) else {
                return nil
            }
            use.ask(pair.key.keyText)
            run.usedKeys.insert(pair.key.mark)
            return key
        }
    }

    func contains(_ key: Key) -> Bool {
        value(for: key) != nil
    }

    private func value(for key: Key) -> YAMLNode? {
        use.ask(run.keys.textName(key.stringValue))
        guard let position = index[key.stringValue] else { return nil }
        run.usedKeys.insert(use.pairs[position].key.mark)
        return use.pairs[position].value
    }

    private func require(_ key: Key) throws -> YAMLNode {
        if let node = value(for: key) { return node }
        let name = run.keys.textName(key.stringValue)
        var message = "missing required key '\(name)'"
        if !codingPath.isEmpty { message += " in '\(run.path(codingPath))'" }
        if let typo = run.misspelling(of: name, in: use) {
            message += " (is '\(typo.keyText)' at \(typo.mark) a misspelling of it?)"
            // Reported here; not again as an unknown key.
            run.usedKeys.insert(typo.mark)
        }
        let error = YAMLError(.missingKey, message, file: run.file, mark: decoder.node.mark)
        throw DecodingError.keyNotFound(key, run.context(codingPath, error))
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try require(key).isNull
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decode(type, key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let node = value(for: key), !node.isNull else { return nil }
        do {
            return try run.unbox(T.self, from: node, path: codingPath + [key])
        } catch where run.lenient {
            run.recover(from: error, node: node, path: codingPath + [key])
            return nil
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        do {
            return try run.unbox(T.self, from: try require(key), path: codingPath + [key])
        } catch {
            guard run.lenient, let placeholder = DecodingRun.placeholder(T.self) else { throw error }
            run.recover(from: error, node: value(for: key) ?? decoder.node, path: codingPath + [key])
            return placeholder
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(try require(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try require(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        superDecoder(key: TextKey("super"), node: index["super"].map { use.pairs[$0].value })
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        superDecoder(key: key, node: value(for: key))
    }

    /// A decoder for the value at `key`; an absent key reads as null, as other decoders do.
    private func superDecoder(key: any CodingKey, node: YAMLNode?) -> any Decoder {
        decoder.child(node ?? .scalar("", mark: decoder.node.mark), key: key)
    }
}
