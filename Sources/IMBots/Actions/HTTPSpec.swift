import IMProtocol

/// `http: {method, url, headers, json | body, timeout, as, expect}`.
struct HTTPSpec: Sendable {
    /// The request body.
    enum Body: Sendable {
        case none
        /// Any YAML structure, sent as JSON; strings inside are templates.
        case json(ValueTemplate)
        /// A template, sent as text.
        case text(TemplateText)
    }

    let method: String
    let url: TemplateText
    let headers: [OrderedEntry<TemplateText>]
    let body: Body
    let timeout: ConfigDuration
    /// The name the response is available under to later actions of the rule.
    let name: String?
    let expect: StatusExpectation

    static let defaultTimeout = ConfigDuration(seconds: 10)
}

/// Which response statuses count as success: `2xx` (the default), `any`, an exact code,
/// or a list of these.
struct StatusExpectation: Sendable, Hashable, CustomStringConvertible {
    enum Pattern: Sendable, Hashable {
        case any
        /// `2xx`: a status class, 1 to 5.
        case statusClass(Int)
        case exact(Int)
    }

    let patterns: [Pattern]

    static let success = StatusExpectation(patterns: [.statusClass(2)])

    func accepts(_ status: Int) -> Bool {
        patterns.contains { pattern in
            switch pattern {
            case .any: true
            case .statusClass(let first): status / 100 == first
            case .exact(let code): status == code
            }
        }
    }

    /// Parses one pattern: `2xx`, `any`, `404`.
    static func pattern(_ text: String) -> Pattern? {
        let lowered = text.trimmedWhitespace.lowercased()
        if lowered == "any" { return .any }
        if lowered.count == 3, lowered.hasSuffix("xx"), let first = Int(lowered.prefix(1)),
           (1...5).contains(first) {
            return .statusClass(first)
        }
        if let code = Int(lowered), (100...599).contains(code) { return .exact(code) }
        return nil
    }

    var description: String {
        patterns.map { pattern -> String in
            switch pattern {
            case .any: "any"
            case .statusClass(let first): "\(first)xx"
            case .exact(let code): String(code)
            }
        }.joined(separator: " or ")
    }
}
