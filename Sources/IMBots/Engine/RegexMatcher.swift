import Foundation

/// A compiled `regex:` text matcher, with a cheap literal test in front of the regex.
final class RegexMatcher: Sendable {
    /// The pattern as written.
    let pattern: String
    let ignoreCase: Bool
    private let regex: NSRegularExpression
    private let groupNames: [String]
    /// Byte strings of which every match contains one (lowered when ignoring case).
    private let literals: [[UInt8]]?

    /// Why a pattern does not compile.
    struct CompileError: Error {
        let message: String
    }

    init(pattern: String, ignoreCase: Bool) throws(CompileError) {
        do {
            regex = try NSRegularExpression(pattern: pattern, options: ignoreCase ? [.caseInsensitive] : [])
        } catch {
            throw CompileError(message: "invalid regex '\(pattern)': \(RegexAnalysis.diagnose(pattern))")
        }
        if RegexAnalysis.hasNestedRepetition(pattern) {
            throw CompileError(message: "regex '\(pattern)' repeats a group that itself repeats without bound "
                               + "(like '(a+)+'), which can take exponential time on some messages; "
                               + "rewrite it without the nested repetition")
        }
        let analysis = RegexAnalysis(pattern)
        self.pattern = pattern
        self.ignoreCase = ignoreCase
        self.groupNames = analysis.groupNames
        if let required = analysis.requiredLiterals {
            if ignoreCase {
                // Case-insensitive ICU matching folds some non-ASCII letters onto ASCII
                // ones (`ſ` matches `s`, `ﬁ` matches `fi`), so ASCII literals are looked
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

    /// Matches the event's text; on success adds `0`, numbered and named captures.
    func matches(_ facts: inout EventFacts, _ bindings: inout Bindings) -> Bool {
        guard let text = facts.text else { return false }
        if let literals {
            let text = ignoreCase ? facts.folded : facts.bytes
            guard literals.contains(where: { ByteText.contains(text, $0) }) else { return false }
        }
        let range = NSRange(location: 0, length: text.utf16.count)
        guard let result = regex.firstMatch(in: text, options: [], range: range) else { return false }
        for group in 0..<result.numberOfRanges {
            if let captured = Self.substring(text, result.range(at: group)) {
                bindings.match[String(group)] = captured
            }
        }
        for name in groupNames {
            if let captured = Self.substring(text, result.range(withName: name)) {
                bindings.match[name] = captured
            }
        }
        return true
    }

    private static func substring(_ text: String, _ range: NSRange) -> String? {
        guard range.location != NSNotFound, let bounds = Range(range, in: text) else { return nil }
        return String(text[bounds])
    }
}
