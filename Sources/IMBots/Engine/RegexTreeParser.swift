/// Reads a PCRE2 pattern into `RegexNode`s for `RegexHazards`; nil for anything it does
/// not fully understand.
struct RegexTreeParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var failed = false

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    mutating func parse() -> [RegexNode]? {
        let branches = alternation()
        guard !failed, index == scalars.count else { return nil }
        return branches.count == 1 ? branches[0] : [.group(branches, atomic: false)]
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func alternation() -> [[RegexNode]] {
        var branches: [[RegexNode]] = [sequence()]
        while !failed, current == "|" {
            index += 1
            branches.append(sequence())
        }
        return branches
    }

    private mutating func sequence() -> [RegexNode] {
        var nodes: [RegexNode] = []
        while !failed, let scalar = current, scalar != "|", scalar != ")" {
            guard let atom = atom() else { continue }
            nodes.append(quantified(atom))
        }
        return nodes
    }

    /// One atom; nil for what matches nothing and takes no quantifier (comments, `\E`).
    private mutating func atom() -> RegexNode? {
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case ".": return .atom(.any)
        case "^", "$": return .anchor
        case "[": return characterClass()
        case "(": return group()
        case "\\": return escape()
        case "*", "+", "?":
            failed = true
            return nil
        default: return .atom(.character(scalar))
        }
    }

    private mutating func escape() -> RegexNode? {
        guard let scalar = current else {
            failed = true
            return nil
        }
        index += 1
        switch scalar {
        case "d": return .atom(.class(.digit))
        case "w": return .atom(.class(.word))
        case "s", "h", "v": return .atom(.class(.space))
        case "b", "B", "A", "z", "Z", "G", "K": return .anchor
        case "Q":
            var run: [RegexNode] = []
            while index < scalars.count {
                if scalars[index] == "\\", index + 1 < scalars.count, scalars[index + 1] == "E" {
                    index += 2
                    break
                }
                run.append(.atom(.character(scalars[index])))
                index += 1
            }
            return .group([run], atomic: false)
        case "E": return nil
        case "p", "P", "x", "o", "N":
            // A property or a code point, possibly braced: any character, for this check.
            if current == "{" {
                while let next = current, next != "}" { index += 1 }
                index += 1
            } else if scalar != "N" {
                index += scalar == "x" ? 2 : 1
            }
            return .atom(.any)
        default:
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                // Other classes, back-references, control escapes: judged as anything.
                return .atom(.any)
            }
            return .atom(.character(scalar))
        }
    }

    private mutating func characterClass() -> RegexNode {
        var set = RegexCharacters.none
        var negated = false
        if current == "^" {
            negated = true
            index += 1
        }
        var first = true
        while let scalar = current, scalar != "]" || first {
            first = false
            index += 1
            if scalar == "[", current == ":" {
                // A POSIX class such as [:alpha:]
                while let next = current, next != "]" { index += 1 }
                index += 1
                set = .any
            } else if scalar == "\\", let escaped = current {
                index += 1
                switch escaped {
                case "d": set = set.union(.class(.digit))
                case "w": set = set.union(.class(.word))
                case "s": set = set.union(.class(.space))
                default: set = escaped.properties.isAlphabetic ? .any : set.union(.character(escaped))
                }
            } else if current == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                let end = scalars[index + 1]
                index += 2
                guard scalar.value <= end.value, end.value - scalar.value < 256 else {
                    set = .any
                    continue
                }
                for value in scalar.value...end.value {
                    if let member = Unicode.Scalar(value) { set = set.union(.character(member)) }
                }
            } else {
                set = set.union(.character(scalar))
            }
        }
        guard current == "]" else {
            failed = true
            return .anchor
        }
        index += 1
        return .atom(negated ? .any : set)
    }

    private mutating func group() -> RegexNode? {
        var atomic = false
        var zeroWidth = false
        if current == "?" {
            index += 1
            switch current {
            case ":", "|": index += 1
            case ">":
                index += 1
                atomic = true
            case "=", "!":
                index += 1
                zeroWidth = true
            case "<" where index + 1 < scalars.count && (scalars[index + 1] == "=" || scalars[index + 1] == "!"):
                index += 2
                zeroWidth = true
            case "'":
                index += 1
                while let next = current, next != "'" { index += 1 }
                index += 1
            case "<", "P":
                while let next = current, next != ">" { index += 1 }
                index += 1
            case "#":
                while let next = current, next != ")" { index += 1 }
                index += 1
                return nil
            default:
                // Inline options such as (?i) or (?i:…): read as a plain group or an anchor.
                while let next = current, next.properties.isAlphabetic || next == "-" { index += 1 }
                if current == ")" {
                    index += 1
                    return .anchor
                }
                guard current == ":" else {
                    failed = true
                    return nil
                }
                index += 1
            }
        }
        let branches = alternation()
        guard !failed, current == ")" else {
            failed = true
            return nil
        }
        index += 1
        return zeroWidth ? .anchor : .group(branches, atomic: atomic)
    }

    /// The quantifier after an atom, if any.
    private mutating func quantified(_ atom: RegexNode) -> RegexNode {
        guard let scalar = current else { return atom }
        var minimum: Int
        var maximum: Int?
        switch scalar {
        case "*": (minimum, maximum) = (0, nil)
        case "+": (minimum, maximum) = (1, nil)
        case "?": (minimum, maximum) = (0, 1)
        case "{":
            guard let bounds = braces() else { return atom }
            (minimum, maximum) = bounds
        default: return atom
        }
        index += 1
        var possessive = false
        if current == "+" {
            possessive = true
            index += 1
        } else if current == "?" {
            index += 1
        }
        if case .anchor = atom { return atom }
        return quantified(.repeated(atom, minimum: minimum, maximum: maximum, possessive: possessive))
    }

    /// `{n}`, `{n,}`, `{n,m}` at the index; leaves the index on the closing brace. PCRE2
    /// reads any other `{` as a literal, and so does this.
    private mutating func braces() -> (Int, Int?)? {
        var cursor = index + 1
        func number() -> Int? {
            var digits = ""
            while cursor < scalars.count, ("0"..."9").contains(scalars[cursor]) {
                digits.unicodeScalars.append(scalars[cursor])
                cursor += 1
            }
            return digits.isEmpty ? nil : Int(digits.prefix(6))
        }
        guard let low = number() else { return nil }
        var high: Int? = low
        if cursor < scalars.count, scalars[cursor] == "," {
            cursor += 1
            high = number()
        }
        guard cursor < scalars.count, scalars[cursor] == "}" else { return nil }
        index = cursor
        return (low, high)
    }
}
