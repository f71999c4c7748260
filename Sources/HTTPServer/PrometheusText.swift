/// What every `/metrics` served over this package writes the same way: label values and
/// help texts escaped as Prometheus' text format wants them, and the HTTP method as a
/// label from a closed set.
public enum PrometheusText {
    /// A label value with `\`, `"` and line feeds escaped, so that no value (a route, a
    /// path, a rule's name) can end its label or its line early.
    public static func label(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        var out = ""
        out.reserveCapacity(value.utf8.count + 8)
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// A `# HELP` text with `\` and line feeds escaped.
    public static func help(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A }) else { return text }
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}

extension HTTPMethod {
    /// The methods counted by name in metrics.
    static let counted: Set<HTTPMethod> = [.get, .head, .post, .put, .patch, .delete, .options]

    /// The method as a metrics label: its name when it is one of the standard methods,
    /// else `other`, so that a client cannot add a series (or break the exposition) by
    /// inventing methods.
    public var metricLabel: String { Self.counted.contains(self) ? rawValue : "other" }
}
