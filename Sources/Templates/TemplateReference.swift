/// A name a template reads, found by static analysis, for checkers such as
/// `switchboard check`.
public struct TemplateReference: Sendable, Hashable, CustomStringConvertible {
    /// What kind of tag holds the name.
    public enum Kind: Sendable, Hashable {
        /// `{{name}}`, `{{{name}}}` or `{{&name}}`.
        case variable
        /// `{{#name}}`.
        case section
        /// `{{^name}}`.
        case invertedSection
        /// `{{>name}}`; the path is the partial's whole name, never split at dots.
        case partial
    }

    /// A section that encloses a reference.
    public struct Section: Sendable, Hashable {
        /// The section's dotted name, split at dots; empty for `{{#.}}`.
        public let path: [String]
        /// Whether it is `{{^name}}`, which renders in the enclosing context.
        public let inverted: Bool
        /// 1-based line of the section's opening tag.
        public let line: Int
        /// 1-based column of the section's opening tag.
        public let column: Int

        /// Creates a section frame.
        public init(path: [String], inverted: Bool, line: Int, column: Int) {
            self.path = path
            self.inverted = inverted
            self.line = line
            self.column = column
        }
    }

    /// The kind of tag.
    public let kind: Kind
    /// The dotted name split at dots (`sender.nickname` → `["sender", "nickname"]`);
    /// empty for the implicit iterator `{{.}}`.
    public let path: [String]
    /// 1-based line of the tag inside the template.
    public let line: Int
    /// 1-based column of the tag, in Unicode scalars.
    public let column: Int
    /// The sections around the tag, outermost first.
    public let sectionStack: [Section]

    /// Creates a reference.
    public init(kind: Kind, path: [String], line: Int, column: Int, sectionStack: [Section]) {
        self.kind = kind
        self.path = path
        self.line = line
        self.column = column
        self.sectionStack = sectionStack
    }

    /// The name as written in the template: `sender.nickname`, or `.`.
    public var name: String { path.isEmpty ? "." : path.joined(separator: ".") }

    /// Whether a section pushed a context around the tag, so that its name may
    /// resolve against that section's value instead of the root (inverted sections
    /// push nothing).
    public var isInsideContextSection: Bool { sectionStack.contains { !$0.inverted } }

    /// `line:column: name`.
    public var description: String { "\(line):\(column): \(name)" }
}

extension Template {
    /// The references whose root name cannot be resolved, given the root names the
    /// context will have.
    ///
    /// The rule is deliberately simple, so that it never reports a name that could
    /// resolve at render time:
    /// - only variable and section names are judged (partials and `{{.}}` are not);
    /// - a name is judged only outside every non-inverted section, because inside
    ///   `{{#alerts}}` a name such as `labels.instance` may belong to the item being
    ///   iterated, which static analysis cannot see (inverted sections push nothing,
    ///   so names inside them are judged like top-level ones);
    /// - a judged name is reported when its first component is not in `knownRoots`.
    ///
    /// Components after the first are never judged: the shape of a root value (for
    /// instance a webhook body) is only known at render time.
    public func unknownReferences(knownRoots: Set<String>) -> [TemplateReference] {
        references.filter { reference in
            guard reference.kind != .partial, let root = reference.path.first else { return false }
            return !reference.isInsideContextSection && !knownRoots.contains(root)
        }
    }
}
