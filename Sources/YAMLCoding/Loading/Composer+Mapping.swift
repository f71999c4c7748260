/// Duplicate keys and `<<` merge keys, applied once a mapping's pairs are composed.
extension Composer {
    /// Drops (and reports) repeated keys, then splices merged pairs in where each `<<` was.
    ///
    /// Keys written in the mapping win over merged ones wherever they appear; among
    /// several merged mappings (`<<: [*a, *b]`) the earlier one wins, as in YAML 1.1's
    /// merge-key type.
    mutating func finishMapping(_ pairs: [YAMLNode.Pair]) -> [YAMLNode.Pair] {
        var firstMarks: [String: YAMLMark] = [:]
        var explicit: [YAMLNode.Pair] = []
        var merges: [(position: Int, pair: YAMLNode.Pair)] = []
        for pair in pairs {
            if mergeKeys && Self.isMergeKey(pair.key) {
                merges.append((explicit.count, pair))
                continue
            }
            if case .scalar(let scalar) = pair.key.content {
                if let first = firstMarks[scalar.text] {
                    report(YAMLError(.duplicateKey,
                        "duplicate key '\(scalar.text)' (first defined at \(first))",
                        mark: pair.key.mark))
                    continue
                }
                firstMarks[scalar.text] = pair.key.mark
            }
            explicit.append(pair)
        }
        guard !merges.isEmpty else { return explicit }

        var taken = Set(firstMarks.keys)
        var result: [YAMLNode.Pair] = []
        var nextMerge = merges.startIndex
        for position in 0...explicit.count {
            while nextMerge < merges.endIndex, merges[nextMerge].position == position {
                result += merged(merges[nextMerge].pair, taken: &taken)
                nextMerge += 1
            }
            if position < explicit.count { result.append(explicit[position]) }
        }
        return result
    }

    /// The pairs a `<<` entry contributes, minus keys already present.
    private mutating func merged(_ merge: YAMLNode.Pair,
                                 taken: inout Set<String>) -> [YAMLNode.Pair] {
        let sources: [YAMLNode]
        switch merge.value.content {
        case .mapping: sources = [merge.value]
        case .sequence(let items) where items.allSatisfy({ $0.mapping != nil }): sources = items
        default:
            report(YAMLError(.invalidMerge,
                "'<<' merges a mapping or a list of mappings (usually an alias like *defaults)",
                mark: merge.value.mark))
            return []
        }
        var result: [YAMLNode.Pair] = []
        for source in sources {
            for pair in source.mapping ?? [] {
                if case .scalar(let scalar) = pair.key.content,
                   !taken.insert(scalar.text).inserted {
                    continue
                }
                result.append(pair)
            }
        }
        return result
    }

    private static func isMergeKey(_ key: YAMLNode) -> Bool {
        guard case .scalar(let scalar) = key.content, scalar.text == "<<" else { return false }
        return key.tag == YAMLNode.CoreTag.merge || (key.tag == nil && scalar.style == .plain)
    }
}
