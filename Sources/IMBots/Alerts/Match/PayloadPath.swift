import Templates

/// A dotted path into a webhook payload: `commonLabels.severity`, `alerts.labels.instance`,
/// `alerts.0.fingerprint`.
///
/// A name segment applied to a list applies to each element, so `alerts.labels.instance`
/// reaches the instance label of every alert; a number segment picks one element.
public struct PayloadPath: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    let segments: [Segment]
    /// The path as written.
    public let description: String

    /// Why a path cannot be used.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// Parses a path; empty segments (`a..b`, a leading or trailing dot) are refused.
    public init(_ text: String) throws(Invalid) {
        guard !text.isEmpty else { throw Invalid(description: "a match path must not be empty") }
        var segments: [Segment] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty else {
                throw Invalid(description: "match path '\(text)' has an empty segment (two dots, or a dot at an end)")
            }
            if let index = Int(part), index >= 0 {
                segments.append(.index(index))
            } else {
                segments.append(.key(String(part)))
            }
        }
        self.segments = segments
        self.description = text
    }

    /// Every value the path reaches in `root`, lists at the end flattened into their
    /// elements; empty when it reaches nothing (or only `null`).
    public func values(in root: TemplateValue) -> [TemplateValue] {
        var current: [TemplateValue] = [root]
        for segment in segments {
            var next: [TemplateValue] = []
            for value in current {
                switch (segment, value) {
                case (.index(let index), .array(let items)):
                    if index < items.count { next.append(items[index]) }
                case (.key(let key), .array(let items)):
                    for item in items {
                        if let member = item[key] { next.append(member) }
                    }
                case (.key(let key), .object(let members)):
                    if let member = members[key] { next.append(member) }
                case (.index(let index), .object(let members)):
                    // An object key that happens to be a number.
                    if let member = members[String(index)] { next.append(member) }
                default:
                    break
                }
            }
            current = next
        }
        return current.flatMap { value -> [TemplateValue] in
            if case .array(let items) = value { return items }
            return [value]
        }.filter { $0 != .null }
    }
}
