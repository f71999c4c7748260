import Templates
import YAMLCoding

/// A rule's `dedupe:` as written: `{ key: "{{…}}", for: 1h }`, both keys optional. Read
/// with the rule; the key is settled once the route's format is known
/// (``resolved(for:file:)``), since only alert formats have a default.
public struct DedupeSpec: Sendable {
    /// The key template, when the rule gives one.
    public let key: DedupeKey?
    /// How long a key suppresses repeats.
    public let lifetime: Duration
    /// Where `dedupe:` is written.
    let mark: YAMLMark
    /// Whether `for:` was written (otherwise the format's default applies).
    let lifetimeGiven: Bool
    /// Where its `key:` value is written, when it has one.
    let keyMark: YAMLMark?

    /// Reads the mapping; throws every problem with its position.
    public init(yaml node: YAMLNode, file: String) throws(YAMLErrors) {
        var reader = AlertYAML(file: file)
        var source: String?
        var lifetime: Duration = .seconds(3600)
        var given = false
        for (key, value) in reader.keyed(node, "dedupe", known: ["key", "for"]) {
            if key == "key" {
                source = reader.nonEmpty(value, "dedupe.key")
            } else if let duration = reader.duration(value, "dedupe.for") {
                given = true
                if duration > .zero { lifetime = duration } else {
                    reader.fail(.invalidValue, "dedupe.for must be longer than 0", at: value)
                }
            }
        }
        var parsed: DedupeKey?
        if let source {
            do {
                parsed = try DedupeKey(source: source, lifetime: lifetime)
            } catch {
                reader.fail(.invalidValue, "dedupe.key: \(error.message) (line \(error.line), column \(error.column) "
                            + "of the template)", at: node["key"] ?? node)
            }
        }
        try reader.check()
        key = parsed
        self.lifetime = lifetime
        lifetimeGiven = given
        mark = node.mark
        keyMark = node["key"]?.mark
    }

    /// The spec of a rule that says nothing: the format's default key for an hour.
    init(defaultAt mark: YAMLMark) {
        key = nil
        lifetime = .seconds(3600)
        lifetimeGiven = false
        self.mark = mark
        keyMark = nil
    }

    /// The key for a route of `format`: the rule's, or the format's default
    /// (``DedupeKey/defaultSource(for:)``, for the format's default time unless `for:` is
    /// written); a `json` route must give its own.
    public func resolved(for format: WebhookFormat, file: String) throws(YAMLErrors) -> DedupeKey {
        if let key { return key }
        guard let source = DedupeKey.defaultSource(for: format) else {
            throw YAMLErrors([YAMLError(.missingKey, "dedupe on a json route needs a key, e.g. key: \"{{payload.id}}\"",
                                        file: file, mark: mark)])
        }
        do {
            return try DedupeKey(
                source: source, lifetime: lifetimeGiven ? lifetime : DedupeKey.defaultLifetime(for: format))
        } catch {
            preconditionFailure("the built-in dedupe key does not parse: \(error)")
        }
    }
}

extension DedupeKey {
    /// Builds a rule's `dedupe:` for a route of `format` (see ``DedupeSpec``).
    public init(yaml node: YAMLNode, file: String, format: WebhookFormat) throws(YAMLErrors) {
        self = try DedupeSpec(yaml: node, file: file).resolved(for: format, file: file)
    }
}
