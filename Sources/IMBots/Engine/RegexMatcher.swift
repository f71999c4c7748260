import Synchronization

/// A compiled `regex:` text matcher (PCRE2, bounded: see `PCRE2Pattern`), with a cheap
/// literal test in front of the regex.
final class RegexMatcher: Sendable {
    /// The pattern as written.
    let pattern: String
    let ignoreCase: Bool
    private let regex: PCRE2Pattern
    /// Byte strings of which every match contains one (lowered when ignoring case).
    private let literals: [[UInt8]]?

    /// Matches stopped by the match limit, in this process (`switchboard_bot_regex_limit_total`).
    static var limitHits: Int { stoppedMatches.load(ordering: .relaxed) }
    private static let stoppedMatches = Atomic<Int>(0)

    /// Why a pattern is refused.
    struct CompileError: Error {
        let message: String
    }

    /// Compiles `pattern`; refuses one that does not compile, one PCRE2 reads otherwise
    /// than it looks (`RegexMistakes`) and, unless `checked` is false (tests of the match
    /// limit), one whose shape can make matching take exponential or high polynomial time
    /// (`RegexHazards`).
    init(pattern: String, ignoreCase: Bool, checked: Bool = true) throws(CompileError) {
        do {
            regex = try PCRE2Pattern(pattern, caseless: ignoreCase)
        } catch {
            let reason = RegexMistakes.explain(pattern, code: error.code, message: error.message, offset: error.offset)
            throw CompileError(message: "invalid regex '\(pattern)': \(reason)")
        }
        if let mistake = RegexMistakes.find(in: pattern) {
            throw CompileError(message: "regex '\(pattern)': \(mistake)")
        }
        if checked, let hazard = RegexHazards.find(in: pattern) {
            throw CompileError(message: "regex '\(pattern)' \(hazard)")
        }
        let analysis = RegexAnalysis(pattern)
        self.pattern = pattern
        self.ignoreCase = ignoreCase
        if let required = analysis.requiredLiterals {
            if ignoreCase {
                // Caseless Unicode matching folds some non-ASCII letters onto ASCII ones
                // (`ſ` matches `s`, `K` (Kelvin) matches `k`), so ASCII literals are looked
                // for in the folded text (see `EventFacts.folded`); others are not used.
                let ascii = required.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }
                literals = ascii ? required.map { ByteText.asciiLowercased(Array($0.utf8)) } : nil
            } else {
                literals = required.map { Array($0.utf8) }
            }
        } else {
            literals = nil
        }
    }

    /// What a match binds under `match.`: the numbered groups from 1, then the named ones.
    var groups: [String] {
        (0..<regex.captureCount).map { String($0 + 1) } + regex.names.map(\.name)
    }

    /// Matches the event's text; on success binds the whole match (`matched`), numbered
    /// and named captures.
    func matches(_ facts: inout EventFacts, _ bindings: inout Bindings) -> Bool {
        guard facts.text != nil else { return false }
        if let literals {
            let text = ignoreCase ? facts.folded : facts.bytes
            guard literals.contains(where: { ByteText.contains(text, $0) }) else { return false }
        }
        let bytes = facts.bytes
        switch regex.firstMatch(in: bytes) {
        case .noMatch:
            return false
        case .limit:
            Self.stoppedMatches.add(1, ordering: .relaxed)
            return false
        case .match(let ranges):
            for (group, range) in ranges.enumerated() {
                guard let range else { continue }
                let text = String(decoding: bytes[range], as: UTF8.self)
                if group == 0 { bindings.matched = text } else { bindings.match[String(group)] = text }
            }
            for (name, group) in regex.names where group < ranges.count {
                if let range = ranges[group] { bindings.match[name] = String(decoding: bytes[range], as: UTF8.self) }
            }
            return true
        }
    }
}
