/// The strict-key check: keys that no type asked for are errors.
extension DecodingRun {
    /// One error per mapping key that was never asked for, in a mapping whose decoding
    /// completed; suggestions come from the keys asked for and declared there.
    ///
    /// When decoding a mapping stopped early, keys not asked for yet may still have
    /// been wanted, so only keys outside a declared list (`YAMLKnownKeys`, `CaseIterable`
    /// coding keys) are reported there. A key is judged by its position in the text, so a
    /// mapping reused through an alias or a merge is fine as long as some use of it asked
    /// for each key.
    func unknownKeyErrors() -> [YAMLError] {
        struct Unused {
            var key: YAMLNode
            var candidates: [String]
            var known: Set<String>
        }
        var unused: [YAMLMark: Unused] = [:]
        var order: [YAMLMark] = []
        for mapping in mappings where mapping.complete || !mapping.known.isEmpty {
            for pair in mapping.pairs where !usedKeys.contains(pair.key.mark) {
                if !mapping.complete && mapping.known.contains(pair.key.keyText) { continue }
                let mark = pair.key.mark
                if unused[mark] == nil {
                    unused[mark] = Unused(key: pair.key, candidates: [], known: [])
                    order.append(mark)
                }
                unused[mark]?.candidates += mapping.asked + mapping.known
                unused[mark]?.known.formUnion(mapping.known)
            }
        }
        return order.compactMap { mark in
            guard let entry = unused[mark] else { return nil }
            return YAMLError(.unknownKey, message(for: entry.key.keyText,
                                                  candidates: entry.candidates, known: entry.known),
                             file: file, mark: mark)
        }
    }

    private func message(for key: String, candidates: [String], known: Set<String>) -> String {
        if known.contains(key) {
            return "key '\(key)' is not used here"
        }
        var seen = Set<String>()
        let unique = candidates.filter { seen.insert($0).inserted }
        if let suggestion = Suggestion.closest(to: key, among: unique) {
            return "unknown key '\(key)' (did you mean '\(suggestion)'?)"
        }
        if !unique.isEmpty, unique.count <= 12 {
            return "unknown key '\(key)' (expected one of: \(unique.joined(separator: ", ")))"
        }
        return "unknown key '\(key)'"
    }

    /// A hint for a missing key: an unasked key of the mapping that looks like a misspelling.
    func misspelling(of key: String, in mapping: MappingUse) -> YAMLNode? {
        let unasked = mapping.pairs.map(\.key).filter { !usedKeys.contains($0.mark) }
        guard let closest = Suggestion.closest(to: key, among: unasked.map(\.keyText)) else {
            return nil
        }
        return unasked.first { $0.keyText == closest }
    }
}
