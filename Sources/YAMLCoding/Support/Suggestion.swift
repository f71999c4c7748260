/// "Did you mean" suggestions by edit distance, for YAML keys and for every other name
/// the program checks (bot rules, command-line options).
public enum Suggestion {
    /// The candidate closest to `word`, if one is close enough to be a likely typo.
    ///
    /// Case, `_` and `-` are ignored (`rate_limit` suggests `rateLimit`); otherwise up to
    /// one edit per three characters is allowed, at most three, where swapping two
    /// neighbouring characters counts as one edit.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let target = normalized(word)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let distance = editDistance(target, normalized(candidate))
            let allowed = max(1, min(3, max(word.count, candidate.count) / 3))
            guard distance <= allowed else { continue }
            if let current = best, current.distance <= distance { continue }
            best = (candidate, distance)
        }
        return best?.candidate
    }

    /// ` (did you mean 'x'?)`, or nothing.
    public static func hint(for word: String, among candidates: some Sequence<String>) -> String {
        closest(to: word, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    private static func normalized(_ word: String) -> [Character] {
        Array(word.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and
    /// transpositions of adjacent characters.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
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
