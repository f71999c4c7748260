/// `check` of a `match:` path against the payload its route's format gives: a path that
/// can never reach a value (a typo such as `commonLabel.severity`) is an error with a
/// suggestion, as a template's path is.
extension PayloadPath {
    /// Why this path reaches nothing in a body of `format`; nil when it may reach a value
    /// (always for `json`, whose fields cannot be known).
    func problem(for format: WebhookFormat) -> String? {
        let root = AlertTemplatePaths.payload(format)
        guard root.type != .any else { return nil }
        if case .key("payload")? = segments.first, root.field("payload") == nil {
            let rest = segments.dropFirst().map(\.text).joined(separator: ".")
            return "match paths start at the body: write '\(rest.isEmpty ? "status" : rest)' (without 'payload.'; "
                + "templates name the body 'payload', match does not)"
        }
        let path = templatePath
        let index: Int, node: TemplateShape
        switch root.find(path, fanOut: true) {
        case .found, .open, .badPosition:
            return nil
        case .noFields(let at, let type):
            let prefix = segments[..<at].map(\.text).joined(separator: ".")
            return "unknown payload path '\(description)': '\(prefix)' is \(type), which has no fields"
        case .unknownField(let at, let found):
            (index, node) = (at, found)
        }
        let name = path[index]
        let prefix = segments[..<index].map(\.text).joined(separator: ".")
        let place = prefix.isEmpty ? "the body" : "'\(prefix)'"
        let hint = TemplateCheck.Place.suggestion(for: name, among: node.fields.map(\.name)).map { close in
            " (did you mean '" + (segments[..<index].map(\.text) + [close] + segments[(index + 1)...].map(\.text))
                .joined(separator: ".") + "'?)"
        } ?? ""
        return "unknown payload path '\(description)'\(hint): \(place) has no field '\(name)' (its fields: "
            + node.fieldNames.joined(separator: ", ") + ")"
    }
}

extension PayloadPath.Segment {
    /// The segment as written.
    var text: String {
        switch self {
        case .key(let name): name
        case .position(let position): "#\(position)"
        }
    }
}
