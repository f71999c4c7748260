/// "Did you mean" for names the bot language checks itself (events, rules, variables,
/// time zones); YAML keys get theirs from the decoder.
enum Suggestion {
    /// The candidate closest to `word`, if one is close enough to be a likely typo:
    /// up to one edit per three characters, at most three; case, `_` and `-` ignored.
    static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let target = normalized(word)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let allowed = max(1, min(3, max(word.count, candidate.count) / 3))
            let distance = editDistance(target, normalized(candidate))
            guard distance <= allowed, distance < (best?.distance ?? .max) else { continue }
            best = (candidate, distance)
        }
        return best?.candidate
    }

    /// ` (did you mean 'x'?)`, or nothing.
    static func hint(for word: String, among candidates: some Sequence<String>) -> String {
        closest(to: word, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    private static func normalized(_ word: String) -> [Character] {
        Array(word.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Edit distance with adjacent transpositions counted as one edit.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
