import YAMLCoding

extension PayloadMatch {
    /// Builds a rule's `match:` from its YAML mapping of `path: condition`.
    ///
    /// A single value is equality, a list is membership; a mapping names one test:
    /// `{ equals: v }`, `{ regex: p, ignore_case: true }`, `{ in: [a, b] }`,
    /// `{ present: true }`. Throws every problem with its position.
    public init(yaml node: YAMLNode, file: String) throws(YAMLErrors) {
        var reader = AlertYAML(file: file)
        var clauses: [Clause] = []
        for pair in reader.mapping(node, "match") ?? [] {
            guard let text = reader.text(pair.key, "a match path") else { continue }
            let path: PayloadPath
            do { path = try PayloadPath(text) } catch {
                reader.fail(.invalidValue, error.description, at: pair.key)
                continue
            }
            if let condition = Self.condition(pair.value, path: text, reader: &reader) {
                clauses.append(Clause(path: path, condition: condition, mark: pair.key.mark))
            }
        }
        try reader.check()
        self.init(clauses)
    }

    private static let tests = ["equals", "regex", "ignore_case", "in", "present"]

    private static func condition(_ node: YAMLNode, path: String, reader: inout AlertYAML) -> PayloadCondition? {
        if let items = node.sequence {
            let options = items.compactMap { reader.text($0, "a value of '\(path)'") }
            return options.count == items.count ? .oneOf(options) : nil
        }
        guard node.mapping != nil else {
            return reader.text(node, "the value of '\(path)'").map(PayloadCondition.equals)
        }
        let before = reader.errors.count
        let entries = reader.keyed(node, "the test of '\(path)'", known: tests)
        let named = entries.filter { $0.0 != "ignore_case" }
        guard named.count == 1, let (test, value) = named.first else {
            // An unknown key was reported already, with its "did you mean".
            if reader.errors.count == before {
                reader.fail(.invalidValue, "the test of '\(path)' must name exactly one of equals, regex, in, present", at: node)
            }
            return nil
        }
        let ignoreCase = entries.first { $0.0 == "ignore_case" }.flatMap { reader.bool($0.1, "ignore_case") } ?? false
        if ignoreCase, test != "regex" {
            reader.fail(.invalidValue, "ignore_case applies to regex only", at: node)
        }
        switch test {
        case "equals":
            return reader.text(value, "equals").map(PayloadCondition.equals)
        case "regex":
            guard let pattern = reader.text(value, "regex") else { return nil }
            do { return .regex(try PayloadRegex(pattern, ignoreCase: ignoreCase)) } catch {
                reader.fail(.invalidValue, error.description, at: value)
                return nil
            }
        case "in":
            guard let items = value.sequence else {
                reader.fail(.typeMismatch, "in must be a list", at: value)
                return nil
            }
            let options = items.compactMap { reader.text($0, "a value of 'in'") }
            return options.count == items.count ? .oneOf(options) : nil
        default:
            return reader.bool(value, "present").map(PayloadCondition.present)
        }
    }
}
