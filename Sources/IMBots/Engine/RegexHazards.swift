/// Shapes of a pattern that make a backtracking engine take exponential or high
/// polynomial time on some texts, which `check` refuses (the match limit of
/// `PCRE2Pattern` bounds what gets past this):
///
/// - a group repeated without bound that itself holds a repetition without bound
///   (`(a+)+`, `(\w+\s?)*`);
/// - a group repeated three times or more that holds a repetition without bound
///   (`(.*a){20}`), or one repeated without bound (or very often) that holds a
///   repetition of variable length (`(x?){30}`, `(a{1,3})+`);
/// - a repeated group whose alternatives can start with the same character
///   (`(a|aa)+`, `(\w|\d)*`);
/// - three or more repetitions without bound in a row over overlapping characters
///   (`\w*\w*\w*x`).
///
/// The reading is of PCRE2 syntax and conservative: what it cannot read is left to the
/// match limit, never refused for that alone.
enum RegexHazards {
    /// What the first hazard found is and what to do about it (`repeats a group that …`),
    /// or nil.
    static func find(in pattern: String) -> String? {
        var parser = RegexTreeParser(Array(pattern.unicodeScalars))
        guard let tree = parser.parse() else { return nil }
        return hazard(inSequence: tree)
    }

    private static func hazard(in node: RegexNode) -> String? {
        switch node {
        case .atom, .anchor:
            return nil
        case .group(let branches, _):
            for branch in branches { if let found = hazard(inSequence: branch) { return found } }
            return nil
        case .repeated(let inner, _, let maximum, let possessive):
            if let found = hazard(in: inner) { return found }
            guard !possessive else { return nil }
            let times = maximum.map { $0 } ?? Int.max
            guard times > 1 else { return nil }
            let innerVariation = inner.variation
            if maximum == nil, innerVariation == nil {
                return "repeats a group that itself repeats without bound (like '(a+)+'), which can take "
                    + "exponential time on some messages; rewrite it without the nested repetition"
            }
            if times >= 3, innerVariation == nil {
                return "repeats \(maximum.map { "\($0) times" } ?? "without bound") a group that itself repeats "
                    + "without bound (like '(.*a){20}'), which can take a very long time on some messages; "
                    + "rewrite it without the nested repetition"
            }
            if let variation = innerVariation, variation > 0 {
                let ways = maximum == nil ? Double.infinity : pow(Double(variation + 1), Double(times))
                if ways > 10_000 {
                    return "repeats a group of variable length \(maximum == nil ? "without bound" : "\(times) times") "
                        + "(like '(x?){30}'), which can take exponential time on some messages; "
                        + "rewrite it with parts of fixed length"
                }
            }
            if case .group(let branches, _) = inner, branches.count > 1, overlap(branches.map(RegexNode.first)) {
                return "repeats a choice whose alternatives can start alike (like '(a|aa)+'), which can take "
                    + "exponential time on some messages; make the alternatives start differently"
            }
            return nil
        }
    }

    private static func hazard(inSequence nodes: [RegexNode]) -> String? {
        for node in nodes { if let found = hazard(in: node) { return found } }
        // Repetitions without bound in a row (unrepeated plain groups count as their content).
        var run: [RegexCharacters] = []
        for node in nodes.flatMap(\.inlined) {
            if case .repeated(let inner, _, nil, false) = node, case .atom(let characters) = inner {
                if run.contains(where: { $0.overlaps(characters) }) {
                    run.append(characters)
                    if run.count >= 3 {
                        return "repeats overlapping characters without bound three times in a row (like "
                            + "'\\w*\\w*\\w*x'), which can take a very long time on some messages; merge them into one"
                    }
                } else {
                    run = [characters]
                }
            } else if case .anchor = node {
                continue
            } else {
                run = []
            }
        }
        return nil
    }

    private static func overlap(_ sets: [RegexCharacters]) -> Bool {
        for (index, set) in sets.enumerated() where sets[(index + 1)...].contains(where: { $0.overlaps(set) }) {
            return true
        }
        return false
    }

    private static func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(min(exponent, 64))
        while remaining > 0 {
            result *= base
            remaining -= 1
        }
        return result
    }
}

/// What a piece of pattern matches, as far as the hazard check needs to know.
indirect enum RegexNode: Sendable {
    /// One character out of a set.
    case atom(RegexCharacters)
    /// Matches no characters (`^`, `\b`, a lookaround, inline flags).
    case anchor
    /// Alternatives, each a sequence; `atomic` groups never backtrack into themselves.
    case group([[RegexNode]], atomic: Bool)
    /// `inner` repeated `minimum` to `maximum` (nil: no bound) times.
    case repeated(RegexNode, minimum: Int, maximum: Int?, possessive: Bool)

    /// How much its length can vary through repetitions inside it: 0 for none, nil for
    /// no bound.
    var variation: Int? {
        switch self {
        case .atom, .anchor: return 0
        case .group(let branches, let atomic):
            if atomic { return 0 }
            var most = 0
            for node in branches.joined() {
                guard let inner = node.variation else { return nil }
                most = max(most, inner)
            }
            return most
        case .repeated(let inner, let minimum, let maximum, let possessive):
            if possessive { return 0 }
            guard let maximum, let inner = inner.variation else { return nil }
            return max(inner, maximum - minimum)
        }
    }

    /// The characters it can start with.
    var first: RegexCharacters {
        switch self {
        case .atom(let characters): return characters
        case .anchor: return .any
        case .group(let branches, _):
            return branches.reduce(RegexCharacters.none) { $0.union(Self.first(of: $1)) }
        case .repeated(let inner, _, _, _): return inner.first
        }
    }

    /// A plain group repeated once stands for its only branch.
    var inlined: [RegexNode] {
        if case .group(let branches, false) = self, branches.count == 1 { return branches[0].flatMap(\.inlined) }
        return [self]
    }

    var canBeEmpty: Bool {
        switch self {
        case .atom: return false
        case .anchor: return true
        case .group(let branches, _): return branches.contains { $0.allSatisfy(\.canBeEmpty) }
        case .repeated(let inner, let minimum, _, _): return minimum == 0 || inner.canBeEmpty
        }
    }

    static func first(of sequence: [RegexNode]) -> RegexCharacters {
        var result = RegexCharacters.none
        for node in sequence {
            result = result.union(node.first)
            if !node.canBeEmpty { return result }
        }
        // The branch can match nothing: it "starts" with whatever follows.
        return .any
    }
}

/// A set of characters, coarsely: any, or some characters and some of the classes
/// `\d`, `\w`, `\s`. Letters are kept lowered, so that the overlap test also holds for
/// caseless patterns.
struct RegexCharacters: Sendable, Hashable {
    enum Class: Sendable, Hashable { case digit, word, space }

    var isAny = false
    var characters: Set<Unicode.Scalar> = []
    var classes: Set<Class> = []

    static let any = RegexCharacters(isAny: true)
    static let none = RegexCharacters()

    static func character(_ scalar: Unicode.Scalar) -> RegexCharacters {
        RegexCharacters(characters: [scalar.properties.lowercaseMapping.unicodeScalars.first ?? scalar])
    }

    static func `class`(_ kind: Class) -> RegexCharacters { RegexCharacters(classes: [kind]) }

    func union(_ other: RegexCharacters) -> RegexCharacters {
        if isAny || other.isAny { return .any }
        return RegexCharacters(characters: characters.union(other.characters), classes: classes.union(other.classes))
    }

    func overlaps(_ other: RegexCharacters) -> Bool {
        if isAny || other.isAny { return true }
        if !characters.isDisjoint(with: other.characters) { return true }
        for kind in classes {
            if other.classes.contains(kind) || other.characters.contains(where: { Self.contains(kind, $0) }) { return true }
            if kind == .digit, other.classes.contains(.word) { return true }
            if kind == .word, other.classes.contains(.digit) { return true }
        }
        return other.classes.contains { kind in characters.contains { Self.contains(kind, $0) } }
    }

    private static func contains(_ kind: Class, _ scalar: Unicode.Scalar) -> Bool {
        switch kind {
        case .digit: ("0"..."9").contains(scalar) || scalar.properties.numericType == .decimal
        case .word: scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        case .space: scalar.properties.isWhitespace
        }
    }
}
