/// Sentences for the mistakes people make in regexes: why a pattern does not compile, in
/// words that point at the character to change, and the patterns PCRE2 accepts but reads
/// otherwise than meant (`a{2` is the text "a{2", not two a's).
enum RegexMistakes {
    /// Why `pattern` does not compile, given PCRE2's error code, message and offset (in
    /// characters).
    static func explain(_ pattern: String, code: Int32, message: String, offset: Int) -> String {
        let scalars = Array(pattern.unicodeScalars)
        let at = offset + 1
        switch code {
        case 114:
            let open = unclosedParenthesis(scalars).map { " at character \($0 + 1)" } ?? ""
            return "a '('\(open) is never closed (add ')' where its group ends, or write \\( to match a '(')"
        case 122:
            return "the ')' at character \(at) has no '(' before it (write \\) to match a ')')"
        case 106:
            let open = lastOpenClass(scalars).map { " at character \($0 + 1)" } ?? ""
            return "a character class '['\(open) is never closed with ']' (write \\[ to match a '[')"
        case 101:
            return "it ends with a lone backslash (write \\\\ to match a backslash)"
        case 109:
            guard offset < scalars.count else { break }
            let character = scalars[offset]
            return "'\(character)' at character \(at) has nothing before it to repeat (write \\\(character) to match a "
                + "'\(character)')"
        case 104:
            guard let braces = braces(endingAt: offset, in: scalars) else { break }
            return "'\(braces.text)' asks for at least \(braces.low) and at most \(braces.high) repetitions: write the "
                + "smaller number first, {\(braces.high),\(braces.low)}"
        case 105:
            return "a repetition count at character \(at) is larger than the regex engine allows (65535 at most)"
        case 142, 144:
            return "a group name at character \(at) is not usable: it has letters, digits and '_' and starts with "
                + "a letter, as in (?<order_id>...)"
        case 115:
            return "it refers to a group that does not exist (at character \(at))"
        case 125:
            return "the lookbehind at character \(at) can match texts of different lengths, which PCRE2 does not "
                + "allow: use fixed-length alternatives, or \\K"
        case 108:
            return "a range in a character class at character \(at) goes backwards: write the lower end first, as in [a-z]"
        case 111:
            return "the group at character \(at) starts with '(?' and a letter PCRE2 does not know: (?:...) groups, "
                + "(?<name>...) names a group, (?i) ignores case"
        default:
            break
        }
        return "\(message) (at character \(at))"
    }

    /// What PCRE2 accepts but reads otherwise than meant; nil when nothing looks so.
    ///
    /// A `{` that does not close a repetition is the text `{`: `a{2` matches "a{2", and so
    /// does `a{,3}` ("{,3}", not "up to three").
    static func find(in pattern: String) -> String? {
        let scalars = Array(pattern.unicodeScalars)
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case "\\":
                if index + 1 < scalars.count, scalars[index + 1] == "Q" {
                    index = endOfQuote(scalars, from: index + 2)
                    continue
                }
                index += 2
                continue
            case "[":
                index = (classEnd(scalars, from: index) ?? scalars.count) + 1
                continue
            case "{" where index > 0:
                if let problem = looseBrace(scalars, at: index) { return problem }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    // MARK: Reading the pattern

    /// A `{` at `index` that starts with a count or a comma but is not a repetition PCRE2
    /// reads: never closed, or `{,n}`.
    private static func looseBrace(_ scalars: [Unicode.Scalar], at index: Int) -> String? {
        var cursor = index + 1
        let digits = { (from: Int) -> Int in
            var end = from
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
            return end
        }
        let lowEnd = digits(cursor)
        let hasLow = lowEnd > cursor
        cursor = lowEnd
        var hasComma = false
        if cursor < scalars.count, scalars[cursor] == "," {
            hasComma = true
            cursor = digits(cursor + 1)
        }
        guard hasLow || hasComma, cursor > index + 1 else { return nil }
        let written = String(String.UnicodeScalarView(scalars[index..<min(cursor + 1, scalars.count)]))
        if cursor >= scalars.count || scalars[cursor] != "}" {
            let shown = String(String.UnicodeScalarView(scalars[index..<cursor]))
            return "'\(shown)' at character \(index + 1) is never closed with '}', so it is not a repetition but the "
                + "text '\(shown)' itself: close it ('\(shown)}'), or write \\{ to match a '{'"
        }
        if !hasLow {
            let high = String(String.UnicodeScalarView(scalars[(index + 2)..<cursor]))
            return "'\(written)' at character \(index + 1) is not a repetition in PCRE2 but the text '\(written)' "
                + "itself: write {0,\(high.isEmpty ? "" : high)} for 'at most \(high.isEmpty ? "any number" : high)'"
        }
        return nil
    }

    /// The offset of the last `(` that is not closed, ignoring escapes and classes.
    private static func unclosedParenthesis(_ scalars: [Unicode.Scalar]) -> Int? {
        var open: [Int] = []
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case "\\":
                index += 1
            case "[":
                guard let end = classEnd(scalars, from: index) else { return open.last }
                index = end
            case "(":
                open.append(index)
            case ")":
                _ = open.popLast()
            default:
                break
            }
            index += 1
        }
        return open.last
    }

    /// The offset of the `[` that opens a class which never closes.
    private static func lastOpenClass(_ scalars: [Unicode.Scalar]) -> Int? {
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case "\\": index += 1
            case "[":
                guard let end = classEnd(scalars, from: index) else { return index }
                index = end
            default: break
            }
            index += 1
        }
        return nil
    }

    /// `{3,1}` ending just before `offset` (where PCRE2 reports it).
    private static func braces(endingAt offset: Int, in scalars: [Unicode.Scalar])
        -> (text: String, low: String, high: String)? {
        let end = min(offset, scalars.count - 1)
        guard let close = (0...end).reversed().first(where: { scalars[$0] == "}" }),
              let open = (0..<close).reversed().first(where: { scalars[$0] == "{" }) else { return nil }
        let inner = String(String.UnicodeScalarView(scalars[(open + 1)..<close])).split(separator: ",")
        guard inner.count == 2 else { return nil }
        return (String(String.UnicodeScalarView(scalars[open...close])), String(inner[0]), String(inner[1]))
    }

    /// The index after `\E`, or the end.
    private static func endOfQuote(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index + 1 < scalars.count {
            if scalars[index] == "\\", scalars[index + 1] == "E" { return index + 2 }
            index += 1
        }
        return scalars.count
    }

    /// The index of the `]` closing the class that opens at `start`, minding escapes and
    /// POSIX classes (`[:alpha:]`); nil when it never closes.
    static func classEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start + 1
        if index < scalars.count, scalars[index] == "^" { index += 1 }
        if index < scalars.count, scalars[index] == "]" { index += 1 }
        while index < scalars.count {
            switch scalars[index] {
            case "\\": index += 1
            case "[" where index + 1 < scalars.count && scalars[index + 1] == ":":
                guard let close = scalars[(index + 2)...].firstIndex(of: "]") else { return nil }
                index = close
            case "]": return index
            default: break
            }
            index += 1
        }
        return nil
    }
}

extension RegexAnalysis {
    /// Why `pattern` does not compile, in ``RegexMistakes``' words; nil when it compiles.
    /// (The payload matchers of the alert bridge call it after their own compile failed.)
    static func diagnose(_ pattern: String) -> String? {
        do {
            _ = try PCRE2Pattern(pattern, caseless: false)
            return nil
        } catch {
            return RegexMistakes.explain(pattern, code: error.code, message: error.message, offset: error.offset)
        }
    }
}
