/// One step of a parsed template; sections own the nodes up to their `end` index.
///
/// The array is flat so that rendering walks index ranges instead of a tree of
/// allocations; standalone lines have already been removed by the parser.
enum TemplateNode: Sendable {
    /// Literal text, at most one line (a line's text ends with its `\n`).
    case text(String)
    /// The start of a non-empty source line: where a standalone partial's
    /// indentation is written, so that every line of the partial is indented.
    case lineStart
    /// `{{name}}` (escaped) or `{{{name}}}` / `{{&name}}`; an empty path is `{{.}}`.
    case variable(path: [String], escaped: Bool)
    /// `{{#name}}` or `{{^name}}`; its content is `nodes[index + 1 ..< end]`.
    case section(path: [String], inverted: Bool, end: Int)
    /// `{{>name}}`; `indentation` is set only when the tag stands alone on its line.
    case partial(name: String, indentation: String?)
}
