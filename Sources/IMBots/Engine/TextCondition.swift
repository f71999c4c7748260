import Foundation

/// `text:`: tests on a message's text, all of which must hold.
final class TextCondition: Sendable {
    /// One test; lists of literals hold when any literal does.
    enum Test: Sendable {
        case equals([Literal])
        case contains([Literal])
        case startsWith([Literal])
        case endsWith([Literal])
        case regex(RegexMatcher)
        case anyWord(WordList)
    }

    /// A literal as written and as compared (lowered or normalised as the options say).
    struct Literal: Sendable {
        let written: String
        let bytes: [UInt8]
    }

    let tests: [Test]
    let ignoreCase: Bool
    let normalize: Bool

    init(tests: [Test], ignoreCase: Bool, normalize: Bool) {
        self.tests = tests
        self.ignoreCase = ignoreCase || normalize
        self.normalize = normalize
    }

    /// A literal prepared for comparison under the given options.
    static func literal(_ text: String, ignoreCase: Bool, normalize: Bool) -> Literal {
        let bytes: [UInt8]
        if normalize {
            bytes = TextNormalizer.normalizedPhrase(text)
        } else if ignoreCase {
            bytes = ByteText.lowercased(text)
        } else {
            bytes = Array(text.utf8)
        }
        return Literal(written: text, bytes: bytes)
    }

    func matches(_ facts: inout EventFacts, _ bindings: inout Bindings) -> Bool {
        guard facts.text != nil else { return false }
        for test in tests where !holds(test, &facts, &bindings) { return false }
        return true
    }

    /// Relative cost, for evaluating cheap conditions first.
    var cost: Int {
        tests.map { test -> Int in
            switch test {
            case .equals, .startsWith, .endsWith: normalize ? 30 : 10
            case .contains: normalize ? 30 : 15
            case .anyWord: 30
            case .regex: 100
            }
        }.max() ?? 10
    }

    private func holds(_ test: Test, _ facts: inout EventFacts, _ bindings: inout Bindings) -> Bool {
        switch test {
        case .equals(let literals):
            let text = haystack(&facts)
            return literals.contains { ByteText.equals(text, $0.bytes, wildcard: normalize) }
        case .contains(let literals):
            let text = haystack(&facts)
            return literals.contains { ByteText.contains(text, $0.bytes, wildcard: normalize) }
        case .startsWith(let literals):
            let text = haystack(&facts)
            return literals.contains { ByteText.hasPrefix(text, $0.bytes, wildcard: normalize) }
        case .endsWith(let literals):
            let text = haystack(&facts)
            return literals.contains { ByteText.hasSuffix(text, $0.bytes, wildcard: normalize) }
        case .regex(let regex):
            return regex.matches(&facts, &bindings)
        case .anyWord(let words):
            let tokens = words.normalized ? facts.normalized : facts.words(lowercase: words.ignoreCase)
            return words.firstMatch(in: tokens) != nil
        }
    }

    /// The bytes literal tests compare against.
    private func haystack(_ facts: inout EventFacts) -> [UInt8] {
        if normalize { return facts.normalized.bytes }
        if ignoreCase { return facts.lowered }
        return facts.bytes
    }

    // MARK: Explanations

    func failure(_ facts: inout EventFacts) -> String {
        guard facts.text != nil else { return "text: the event has no text" }
        var scratch = Bindings()
        for test in tests where !holds(test, &facts, &scratch) {
            return "text does not " + describe(test) + options
        }
        return "text: does not match"
    }

    var summary: String {
        "text " + tests.map { test -> String in
            let negative = describe(test)
            // "not be" -> "is", "not contain" -> "contains" ... for the positive form.
            switch test {
            case .equals: return negative.replacingFirst("equal", with: "equals")
            case .contains: return negative.replacingFirst("contain", with: "contains")
            case .startsWith: return negative.replacingFirst("start", with: "starts")
            case .endsWith: return negative.replacingFirst("end", with: "ends")
            case .regex: return negative.replacingFirst("match", with: "matches")
            case .anyWord: return negative.replacingFirst("contain", with: "contains")
            }
        }.joined(separator: " and ") + options
    }

    /// The test after "text does not ...".
    private func describe(_ test: Test) -> String {
        switch test {
        case .equals(let literals): "equal " + list(literals)
        case .contains(let literals): "contain " + list(literals)
        case .startsWith(let literals): "start with " + list(literals)
        case .endsWith(let literals): "end with " + list(literals)
        case .regex(let regex): "match regex '\(regex.pattern)'"
        case .anyWord(let words):
            "contain any of the words [" + words.phrases.joined(separator: ", ") + "]"
        }
    }

    private func list(_ literals: [Literal]) -> String {
        let quoted = literals.map { "'\($0.written)'" }
        return quoted.count == 1 ? quoted[0] : "any of " + quoted.joined(separator: ", ")
    }

    private var options: String {
        if normalize { return " (normalised)" }
        return ignoreCase ? " (ignoring case)" : ""
    }
}

extension String {
    /// The string with the first occurrence of `target` replaced.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
