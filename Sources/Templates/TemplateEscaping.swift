/// How a variable tag `{{name}}` treats the text it inserts.
///
/// `{{{name}}}` and `{{&name}}` never escape in `.html` mode.
public enum TemplateEscaping: Sendable, Hashable {
    /// Escapes `&`, `<`, `>`, `"` and `'` as HTML entities: the Mustache default.
    case html
    /// Inserts text as it is: the mode for chat messages, which are plain text.
    case none
    /// Percent-encodes every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`), in
    /// every variable tag, triple ones included: the mode for URLs, so that a value can
    /// never add a path segment, a query parameter or a fragment.
    case urlComponent
}
