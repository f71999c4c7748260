/// Static facts about a (PCRE2) regular expression that make matching cheaper: literal
/// text every match must contain.
///
/// The analysis is conservative: any construct it does not fully understand (inline
/// flags, `\Q...\E`, `\p{...}`, hex escapes...) makes it give up on literals, which only
/// costs speed, never a match.
struct RegexAnalysis {
    /// Literals of which every match contains at least one; nil when none is known.
    let requiredLiterals: [String]?

    init(_ pattern: String) {
        var parser = Parser(Array(pattern.unicodeScalars))
        let requirement = parser.alternation()
        if parser.failed || parser.index < parser.scalars.count {
            requiredLiterals = nil
        } else {
            requiredLiterals = requirement.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// A recursive-descent reader of the pattern that computes required literals.
    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0
        var failed = false

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        /// `a|b|c`: every branch must have a requirement; the union is the requirement.
        mutating func alternation() -> [String]? {
            var union: [String] = []
            var complete = true
            while true {
                let branch = sequence()
                if let branch { union += branch } else { complete = false }
                guard !failed, index < scalars.count, scalars[index] == "|" else { break }
                index += 1
            }
            return complete ? union : nil
        }

        /// A run of atoms up to `|`, `)` or the end; its best requirement.
        private mutating func sequence() -> [String]? {
            var best: [String]?
            var run = ""
            func consider(_ candidate: [String]) {
                guard !candidate.isEmpty else { return }
                let score = candidate.map(\.unicodeScalars.count).min() ?? 0
                let bestScore = best.map { $0.map(\.unicodeScalars.count).min() ?? 0 } ?? 0
                if score > bestScore { best = candidate }
            }
            func flush() {
                if !run.isEmpty { consider([run]) }
                run = ""
            }
            while !failed, index < scalars.count {
                let scalar = scalars[index]
                if scalar == "|" || scalar == ")" { break }
                let atom = self.atom()
                guard !failed else { return nil }
                let minimum = quantifier()
                guard !failed else { return nil }
                switch atom {
                case .literal(let literal):
                    switch minimum {
                    case nil:
                        run.unicodeScalars.append(literal)
                    case let count? where count > 0:
                        // Present at least once, but what follows may repeat it.
                        run.unicodeScalars.append(literal)
                        flush()
                    default:
                        flush()
                    }
                case .group(let requirement):
                    flush()
                    if (minimum ?? 1) > 0, let requirement { consider(requirement) }
                case .other:
                    flush()
                }
            }
            flush()
            return best
        }

        private enum Atom {
            case literal(Unicode.Scalar)
            case group([String]?)
            case other
        }

        private mutating func atom() -> Atom {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case ".", "^", "$": return .other
            case "[":
                guard let end = RegexMistakes.classEnd(scalars, from: index - 1) else { return fail() }
                index = end + 1
                return .other
            case "(": return group()
            case "*", "+", "?", "{": return fail()
            case "\\": return escape()
            default: return .literal(scalar)
            }
        }

        private mutating func escape() -> Atom {
            guard index < scalars.count else { return fail() }
            let scalar = scalars[index]
            index += 1
            if scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) {
                return .literal(scalar)
            }
            switch scalar {
            case "d", "D", "w", "W", "s", "S", "b", "B", "A", "z", "Z", "G", "n", "t", "r", "f", "e", "a":
                return .other
            default:
                return fail()
            }
        }

        private mutating func group() -> Atom {
            var zeroWidth = false
            if index < scalars.count, scalars[index] == "?" {
                index += 1
                guard index < scalars.count else { return fail() }
                switch scalars[index] {
                case ":", ">": index += 1
                case "=", "!":
                    index += 1
                    zeroWidth = true
                case "<":
                    index += 1
                    guard index < scalars.count else { return fail() }
                    if scalars[index] == "=" || scalars[index] == "!" {
                        index += 1
                        zeroWidth = true
                    } else {
                        while index < scalars.count, scalars[index] != ">" { index += 1 }
                        guard index < scalars.count else { return fail() }
                        index += 1
                    }
                default:
                    // Inline flags and comments change how the rest reads: give up.
                    return fail()
                }
            }
            let inner = alternation()
            guard !failed, index < scalars.count, scalars[index] == ")" else { return fail() }
            index += 1
            return zeroWidth ? .other : .group(inner)
        }

        /// `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}` with optional lazy/possessive suffix;
        /// the minimum repeat count, or nil when no quantifier follows.
        private mutating func quantifier() -> Int? {
            guard index < scalars.count else { return nil }
            var minimum: Int
            switch scalars[index] {
            case "?", "*":
                minimum = 0
                index += 1
            case "+":
                minimum = 1
                index += 1
            case "{":
                index += 1
                var digits = ""
                while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                    digits.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard let value = Int(digits) else {
                    failed = true
                    return nil
                }
                minimum = value
                while index < scalars.count, scalars[index] != "}" { index += 1 }
                guard index < scalars.count else {
                    failed = true
                    return nil
                }
                index += 1
            default:
                return nil
            }
            if index < scalars.count, scalars[index] == "?" || scalars[index] == "+" { index += 1 }
            return minimum
        }

        private mutating func fail() -> Atom {
            failed = true
            return .other
        }
    }
}
