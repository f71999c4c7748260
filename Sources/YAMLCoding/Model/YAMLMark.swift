/// A position in a YAML source text: 1-based line and column (columns count characters).
///
/// A mark of `0:0` means "unknown", e.g. for nodes built in code rather than parsed.
public struct YAMLMark: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 1-based line.
    public var line: Int
    /// The 1-based column, in characters.
    public var column: Int

    /// Creates a mark from 1-based line and column numbers.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The mark used for nodes that do not come from a source text.
    public static let unknown = YAMLMark(line: 0, column: 0)

    /// Whether this mark points into a source text.
    public var isKnown: Bool { line > 0 }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    /// Source order: by line, then column.
    public static func < (lhs: YAMLMark, rhs: YAMLMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
