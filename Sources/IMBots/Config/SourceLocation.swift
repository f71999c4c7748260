import YAMLCoding

/// A position in a bot file, so that reports point a person at the source.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file as it was given to the loader (relative paths stay relative).
    public var file: String
    /// 1-based line; 0 when the position is unknown.
    public var line: Int
    /// 1-based column, in characters; 0 when the position is unknown.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// A location at a YAML mark of `file`.
    init(file: String, mark: YAMLMark?) {
        self.init(file: file, line: mark?.line ?? 0, column: mark?.column ?? 0)
    }

    /// `file:line:column`, or just `file` when the position is unknown.
    public var description: String {
        line > 0 ? "\(file):\(line):\(column)" : file
    }

    /// File, then line, then column.
    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}
