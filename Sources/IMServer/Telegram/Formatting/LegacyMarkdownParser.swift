/// Telegram's legacy Markdown: `*bold*`, `_italic_`, `` `code` ``, ```` ```pre``` ```` and
/// `[text](url)`, not nested; `\` escapes `_`, `*`, `` ` `` and `[` outside entities.
struct LegacyMarkdownParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var out = FormattedText()

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    mutating func parse() throws -> (String, [TGEntity]) {
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\\" where index + 1 < scalars.count && ["_", "*", "`", "["].contains(scalars[index + 1]):
                out.append(scalars[index + 1])
                index += 2
            case "*", "_":
                try span(until: scalar, type: scalar == "*" ? "bold" : "italic")
            case "`":
                if index + 2 < scalars.count, scalars[index + 1] == "`", scalars[index + 2] == "`" {
                    try pre()
                } else {
                    try span(until: "`", type: "code")
                }
            case "[":
                try link()
            default:
                out.append(scalar)
                index += 1
            }
        }
        return out.result()
    }

    /// Everything up to the next `marker`, as one entity.
    private mutating func span(until marker: Unicode.Scalar, type: String) throws {
        let opening = index
        index += 1
        let start = out.offset
        while index < scalars.count, scalars[index] != marker {
            out.append(scalars[index])
            index += 1
        }
        guard index < scalars.count else {
            throw FormattingError("can't find end of the entity starting at character \(opening)")
        }
        index += 1
        out.entity(type, from: start)
    }

    private mutating func pre() throws {
        let opening = index
        index += 3
        var end = index
        while end < scalars.count, scalars[end] != "\n", scalars[end] != "`", !scalars[end].properties.isWhitespace {
            end += 1
        }
        var language: String?
        if end < scalars.count, scalars[end] == "\n", end > index {
            language = String(String.UnicodeScalarView(scalars[index..<end]))
            index = end + 1
        }
        let start = out.offset
        while index + 2 < scalars.count, !(scalars[index] == "`" && scalars[index + 1] == "`" && scalars[index + 2] == "`") {
            out.append(scalars[index])
            index += 1
        }
        guard index + 2 < scalars.count else {
            throw FormattingError("can't find end of the entity starting at character \(opening)")
        }
        index += 3
        out.entity("pre", from: start, language: language)
    }

    private mutating func link() throws {
        let opening = index
        index += 1
        let start = out.offset
        while index < scalars.count, scalars[index] != "]" {
            out.append(scalars[index])
            index += 1
        }
        guard index + 1 < scalars.count, scalars[index + 1] == "(" else {
            throw FormattingError("can't find end of the entity starting at character \(opening)")
        }
        index += 2
        var url = String.UnicodeScalarView()
        while index < scalars.count, scalars[index] != ")" {
            url.append(scalars[index])
            index += 1
        }
        guard index < scalars.count else { throw FormattingError("can't find end of a URL") }
        index += 1
        out.entity("text_link", from: start, url: String(url))
    }
}
