import Foundation
import YAMLCoding

/// Rewrites the YAML paths in the decoder's messages the way people count:
/// `'rules[2].do[0].reply.quote'` becomes `'reply.quote' of action 1 in rule 'greet'`,
/// rules by name (or from 1 when a rule has none), actions and examples from 1.
struct ReadablePaths {
    /// The rules' names in file order; nil where a rule has none.
    let ruleNames: [String?]

    /// Reads the rule names from the file's text (without `${VAR}`: names are plain).
    init(text: String) {
        let root = try? YAMLLoader(interpolation: .disabled).load(text)
        ruleNames = root?["rules"]?.sequence?.map { $0["name"]?.scalar?.text } ?? []
    }

    /// `message` with each quoted path that starts at `rules[N]` rewritten.
    func rewrite(_ message: String) -> String {
        guard message.contains("'rules[") else { return message }
        var result = ""
        var rest = Substring(message)
        while let start = rest.range(of: "'rules[") {
            result += rest[..<start.lowerBound]
            let afterQuote = rest[start.lowerBound...].dropFirst()
            guard let end = afterQuote.firstIndex(of: "'") else {
                rest = rest[start.lowerBound...]
                break
            }
            result += readable(String(afterQuote[..<end]))
            rest = afterQuote[afterQuote.index(after: end)...]
        }
        return result + rest
    }

    /// `rules[2].do[0].reply.quote` → `'reply.quote' of action 1 in rule 'greet'`.
    private func readable(_ path: String) -> String {
        var parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, let rule = Self.index(first, of: "rules") else { return "'\(path)'" }
        parts.removeFirst()
        var place: [String] = []
        if let next = parts.first, let action = Self.index(next, of: "do") {
            place.append("action \(action + 1)")
            parts.removeFirst()
        } else if let next = parts.first, let example = Self.index(next, of: "examples") {
            place.append("example \(example + 1)")
            parts.removeFirst()
        }
        let name = rule < ruleNames.count ? ruleNames[rule] : nil
        place.append(name.map { "rule '\($0)'" } ?? "rule \(rule + 1)")
        let within = place.joined(separator: " in ")
        return parts.isEmpty ? within : "'\(parts.joined(separator: "."))' of \(within)"
    }

    /// `N` of `key[N]`.
    private static func index(_ part: String, of key: String) -> Int? {
        guard part.hasPrefix(key + "["), part.hasSuffix("]") else { return nil }
        return Int(part.dropFirst(key.count + 1).dropLast())
    }
}
