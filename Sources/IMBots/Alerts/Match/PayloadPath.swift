import Templates

/// A dotted path into a webhook payload: `commonLabels.severity`, `alerts.labels.instance`,
/// `alerts.#1.fingerprint`.
///
/// A name segment applied to a list applies to each element, so `alerts.labels.instance`
/// reaches the instance label of every alert; `#N` picks one element, counting from 1 as
/// every position does (`{{payload.alerts.1}}` in a template, `argv.1`, `match.1`). A bare
/// number is refused: match paths counted from 0 before, and reading `alerts.1` anew would
/// change what an existing file means, so `check` names the `#N` that keeps it.
public struct PayloadPath: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case key(String)
        /// A list position, counting from 1.
        case position(Int)
    }

    let segments: [Segment]
    /// The path as written.
    public let description: String

    /// Why a path cannot be used.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// Parses a path; empty segments (`a..b`, a leading or trailing dot) and bare numbers
    /// are refused.
    public init(_ text: String) throws(Invalid) {
        guard !text.isEmpty else { throw Invalid(description: "a match path must not be empty") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var segments: [Segment] = []
        for (index, part) in parts.enumerated() {
            guard !part.isEmpty else {
                throw Invalid(description: "match path '\(text)' has an empty segment (two dots, or a dot at an end)")
            }
            if part.first == "#" {
                guard let position = TemplateValue.position(String(part.dropFirst())) else {
                    throw Invalid(description: "match path '\(text)': '\(part)' is not a position; positions count "
                                  + "from 1 ('#1' is the first item)")
                }
                segments.append(.position(position))
            } else if let old = Int(part), old >= 0 {
                var fixed = parts.map(String.init)
                fixed[index] = "#\(old + 1)"
                throw Invalid(description: "match path '\(text)': a list position is written '#N' and counts from 1, "
                              + "as in templates; '\(part)' counted from 0: write '\(fixed.joined(separator: "."))'")
            } else {
                segments.append(.key(String(part)))
            }
        }
        self.segments = segments
        self.description = text
    }

    /// The path as a template names the same value (`alerts.1.labels`): what the shape
    /// check follows.
    var templatePath: [String] {
        segments.map { segment in
            switch segment {
            case .key(let name): name
            case .position(let position): String(position)
            }
        }
    }

    /// Every value the path reaches in `root`, lists at the end flattened into their
    /// elements; empty when it reaches nothing (or only `null`). Each step is the one a
    /// template takes (``TemplateValue/member(_:)``), and a name on a list takes it on
    /// every item.
    public func values(in root: TemplateValue) -> [TemplateValue] {
        var current: [TemplateValue] = [root]
        for (segment, step) in zip(segments, templatePath) {
            var next: [TemplateValue] = []
            for value in current {
                if case .array(let items) = value, case .key = segment {
                    next += items.compactMap { $0.member(step) }
                } else if let member = value.member(step) {
                    next.append(member)
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
