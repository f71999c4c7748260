import YAMLCoding

/// Reading the alert bridge's YAML values (`match:`, `dedupe:`, a `webhooks:` entry):
/// every problem is collected with its `file:line:column`, not only the first.
struct AlertYAML {
    let file: String
    private(set) var errors: [YAMLError] = []

    init(file: String) { self.file = file }

    mutating func fail(_ code: YAMLError.Code, _ message: String, at node: YAMLNode) {
        errors.append(YAMLError(code, message, file: file, mark: node.mark))
    }

    /// The pairs of a mapping; records an error and returns nil for anything else.
    mutating func mapping(_ node: YAMLNode, _ what: String) -> [YAMLNode.Pair]? {
        guard let pairs = node.mapping else {
            fail(.typeMismatch, "\(what) must be a mapping", at: node)
            return nil
        }
        return pairs
    }

    /// The keys of a mapping, each checked against `known` ("unknown key … did you mean").
    mutating func keyed(_ node: YAMLNode, _ what: String, known: [String]) -> [(String, YAMLNode)] {
        guard let pairs = mapping(node, what) else { return [] }
        var entries: [(String, YAMLNode)] = []
        for pair in pairs {
            guard let key = pair.key.scalar?.text else {
                fail(.typeMismatch, "\(what) keys must be plain names", at: pair.key)
                continue
            }
            guard known.contains(key) else {
                fail(.unknownKey, "unknown key '\(key)' in \(what)\(Suggestion.hint(for: key, among: known))", at: pair.key)
                continue
            }
            entries.append((key, pair.value))
        }
        return entries
    }

    /// A scalar's text; records an error for lists, mappings and null.
    mutating func text(_ node: YAMLNode, _ what: String) -> String? {
        guard let scalar = node.scalar, !node.isNull else {
            fail(.typeMismatch, "\(what) must be a single value", at: node)
            return nil
        }
        return scalar.text
    }

    /// A non-empty string, e.g. a secret that `${VAR}` filled.
    mutating func nonEmpty(_ node: YAMLNode, _ what: String) -> String? {
        guard let value = text(node, what) else { return nil }
        guard !value.isEmpty else {
            fail(.invalidValue, "\(what) is empty; set it (e.g. from an environment variable)", at: node)
            return nil
        }
        return value
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        guard case .bool(let value)? = node.scalarValue else {
            fail(.typeMismatch, "\(what) must be true or false", at: node)
            return nil
        }
        return value
    }

    /// `30s`, `5m`, `1h30m`, `1d`.
    mutating func duration(_ node: YAMLNode, _ what: String) -> Duration? {
        guard let value = text(node, what) else { return nil }
        if value == "0" || value == "0s" { return .zero }
        guard let duration = AlertCommand.parseDuration(value) else {
            fail(.invalidValue, "\(what) '\(value)' is not a duration; use e.g. 30s, 5m, 1h or 1h30m", at: node)
            return nil
        }
        return duration
    }

    /// Throws the collected errors, if any.
    func check() throws(YAMLErrors) {
        if !errors.isEmpty { throw YAMLErrors(errors) }
    }
}
