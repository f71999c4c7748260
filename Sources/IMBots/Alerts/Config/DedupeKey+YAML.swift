import Templates
import YAMLCoding

extension DedupeKey {
    /// Builds a rule's `dedupe:`: `{ key: "{{…}}", for: 1h }`; both keys are optional
    /// (the key defaults to ``defaultAlertSource``, which only alert formats can use).
    /// - Parameter format: the route's format; a `json` route must give its own key.
    public init(yaml node: YAMLNode, file: String, format: WebhookFormat) throws(YAMLErrors) {
        var reader = AlertYAML(file: file)
        var source: String?
        var lifetime: Duration = .seconds(3600)
        for (key, value) in reader.keyed(node, "dedupe", known: ["key", "for"]) {
            if key == "key" {
                source = reader.nonEmpty(value, "dedupe.key")
            } else if let duration = reader.duration(value, "dedupe.for") {
                if duration > .zero { lifetime = duration } else {
                    reader.fail(.invalidValue, "dedupe.for must be longer than 0", at: value)
                }
            }
        }
        if source == nil, format == .json, reader.errors.isEmpty {
            reader.fail(.missingKey, "dedupe on a json route needs a key, e.g. key: \"{{id}}\"", at: node)
        }
        var parsed: DedupeKey?
        do {
            parsed = try DedupeKey(source: source ?? Self.defaultAlertSource, lifetime: lifetime)
        } catch {
            reader.fail(.invalidValue, "dedupe.key: \(error.message) (line \(error.line), column \(error.column) of the template)",
                        at: node["key"] ?? node)
        }
        try reader.check()
        guard let parsed else { throw YAMLErrors([]) }
        self = parsed
    }
}
