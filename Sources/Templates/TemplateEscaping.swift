/// How a variable tag `{{name}}` treats the text it inserts.
///
/// `{{{name}}}` and `{{&name}}` never escape, whichever mode is chosen.
public enum TemplateEscaping: Sendable, Hashable {
    /// Escapes `&`, `<`, `>`, `"` and `'` as HTML entities: the Mustache default.
    case html
    /// Inserts text as it is: the mode for chat messages, which are plain text.
    case none
}
