/// Why a template source could not be parsed, and where.
///
/// `line` and `column` are 1-based positions inside the template source; columns count
/// Unicode scalars, as YAML parsers do, so a checker can add them to the position of the
/// YAML scalar that holds the template.
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable identity of a parse error, for tests and tools to match on.
    public enum Code: String, Sendable, Hashable {
        /// An opening delimiter without its closing delimiter.
        case unclosedTag
        /// A section or inverted section never closed before the end of the template.
        case unclosedSection
        /// A closing tag whose name differs from the innermost open section.
        case mismatchedSectionEnd
        /// A closing tag while no section is open.
        case unexpectedSectionEnd
        /// A set-delimiter tag that does not hold exactly two usable delimiters.
        case invalidDelimiters
        /// An empty tag, or a name with blanks or empty dotted components.
        case invalidName
        /// Sections nested deeper than ``Template/maximumNesting``.
        case nestingTooDeep
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// What went wrong, for a person: names the tag and says what was expected.
    public let message: String
    /// The name the template was parsed with (a file, a rule, a YAML path...).
    public let templateName: String
    /// 1-based line of the offending tag.
    public let line: Int
    /// 1-based column of the offending tag.
    public let column: Int

    /// Creates an error; the parser is the only producer outside tests.
    public init(code: Code, message: String, templateName: String, line: Int, column: Int) {
        self.code = code
        self.message = message
        self.templateName = templateName
        self.line = line
        self.column = column
    }

    /// `name:line:column: message`, the form editors and compilers use.
    public var description: String { "\(templateName):\(line):\(column): \(message)" }
}
