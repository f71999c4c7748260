/// Lists and string-keyed dictionaries, decoded item by item so that every bad item is
/// reported, not only the first.
///
/// In a lenient pass the bad items are recorded and left out instead.
protocol CollectionDecodable {
    static func decodeYAML(from node: YAMLNode, path: [any CodingKey],
                           run: DecodingRun) throws -> Self
    /// The stand-in a lenient pass uses after a failure: empty.
    static var yamlPlaceholder: Self { get }
}

extension Array: CollectionDecodable where Element: Decodable {
    static var yamlPlaceholder: [Element] { [] }

    static func decodeYAML(from node: YAMLNode, path: [any CodingKey],
                           run: DecodingRun) throws -> [Element] {
        guard let items = node.sequence else {
            throw run.typeMismatch(Self.self, expected: "a list", node: node, path: path)
        }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        var errors: [YAMLError] = []
        for (index, item) in items.enumerated() {
            let itemPath = path + [IndexKey(index)]
            do {
                result.append(try run.unbox(Element.self, from: item, path: itemPath))
            } catch {
                if run.lenient {
                    run.recover(from: error, node: item, path: itemPath)
                } else {
                    errors += run.yamlErrors(from: error, node: item, path: itemPath)
                }
            }
        }
        guard errors.isEmpty else { throw run.combined(errors, path: path) }
        return result
    }
}

extension Dictionary: CollectionDecodable where Key == String, Value: Decodable {
    static var yamlPlaceholder: [String: Value] { [:] }

    static func decodeYAML(from node: YAMLNode, path: [any CodingKey],
                           run: DecodingRun) throws -> [String: Value] {
        guard let pairs = node.mapping else {
            throw run.typeMismatch(Self.self, expected: "a mapping", node: node, path: path)
        }
        var result: [String: Value] = [:]
        var errors: [YAMLError] = []
        for pair in pairs {
            guard pair.key.scalar != nil else {
                let error = YAMLError(.typeMismatch,
                    "keys\(run.forPath(path)) must be plain values, found \(Describe.found(pair.key))",
                    file: run.file, mark: pair.key.mark)
                if run.lenient {
                    run.recover(from: error, node: pair.key, path: path)
                } else {
                    errors.append(error)
                }
                continue
            }
            let key = pair.key.keyText
            let valuePath = path + [TextKey(key)]
            do {
                result[key] = try run.unbox(Value.self, from: pair.value, path: valuePath)
            } catch {
                if run.lenient {
                    run.recover(from: error, node: pair.value, path: valuePath)
                } else {
                    errors += run.yamlErrors(from: error, node: pair.value, path: valuePath)
                }
            }
        }
        guard errors.isEmpty else { throw run.combined(errors, path: path) }
        return result
    }
}
