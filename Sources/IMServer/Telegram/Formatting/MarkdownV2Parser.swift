/// Telegram's MarkdownV2: `*bold*`, `_italic_`, `__underline__`, `~strikethrough~`,
/// `||spoiler||`, `` `code` ``, ```` ```language\npre``` ````, `[text](url)`,
/// `![👍](tg://emoji?id=…)`, `>quote` lines and `**>expandable quote` lines; `\`
/// escapes any ASCII character. A reserved character left unescaped is taken as itself
/// (Telegram refuses it); an entity left open is refused as Telegram does.
struct MarkdownV2Parser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var out = FormattedText()
    /// Open entities: their marker, where they started, and a link's or emoji's kind.
    private var open: [(marker: String, start: Int)] = []
    private var quoteStart: Int?
    private var quoteExpandable = false

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    private func at(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private func starts(with marker: String) -> Bool {
        for (offset, scalar) in marker.unicodeScalars.enumerated() where at(offset) != scalar { return false }
        return true
    }

    mutating func parse() throws -> (String, [TGEntity]) {
        while index < scalars.count {
            if index == 0 || scalars[index - 1] == "\n" { lineStart() }
            let scalar = scalars[index]
            switch scalar {
            case "\\":
                if let next = at(1), next.value >= 1, next.value <= 126 {
                    out.append(next)
                    index += 2
                } else {
                    out.append(scalar)
                    index += 1
                }
            case "`":
                try code()
            case "*", "~":
                toggle(String(scalar), type: scalar == "*" ? "bold" : "strikethrough")
                index += 1
            case "_":
                if starts(with: "__") {
                    toggle("__", type: "underline")
                    index += 2
                } else {
                    toggle("_", type: "italic")
                    index += 1
                }
            case "|" where starts(with: "||"):
                if quoteExpandable, quoteStart != nil, at(2) == nil || at(2) == "\n" {
                    index += 2  // the end of an expandable quote
                } else {
                    toggle("||", type: "spoiler")
                    index += 2
                }
            case "[":
                open.append((marker: "[", start: out.offset))
                index += 1
            case "!" where at(1) == "[":
                open.append((marker: "![", start: out.offset))
                index += 2
            case "]":
                try closeLink()
            case "\n":
                out.append(scalar)
                index += 1
                if quoteStart != nil, at(0) != ">", !starts(with: "**>") { closeQuote(excludingNewline: true) }
            default:
                out.append(scalar)
                index += 1
            }
        }
        closeQuote(excludingNewline: false)
        if let unclosed = open.last {
            throw FormattingError("can't find end of the entity starting with '\(unclosed.marker)'")
        }
        return out.result()
    }

    /// `>` or `**>` at the start of a line begins or continues a quote.
    private mutating func lineStart() {
        if starts(with: "**>") {
            if quoteStart == nil { quoteStart = out.offset }
            quoteExpandable = true
            index += 3
        } else if at(0) == ">" {
            if quoteStart == nil {
                quoteStart = out.offset
                quoteExpandable = false
            }
            index += 1
        }
    }

    private mutating func closeQuote(excludingNewline: Bool) {
        guard let start = quoteStart else { return }
        quoteStart = nil
        // The entity ends before the newline that ended its last line.
        let type = quoteExpandable ? "expandable_blockquote" : "blockquote"
        out.entity(type, from: start, to: excludingNewline ? out.offset - 1 : out.offset)
    }

    private mutating func toggle(_ marker: String, type: String) {
        if let position = open.lastIndex(where: { $0.marker == marker }) {
            let start = open.remove(at: position).start
            out.entity(type, from: start)
        } else {
            open.append((marker: marker, start: out.offset))
        }
    }

    /// `` `code` `` or ```` ```language\npre``` ````: only `` ` `` and `\` are escaped inside.
    private mutating func code() throws {
        let fence = starts(with: "```")
        index += fence ? 3 : 1
        var language: String?
        if fence {
            var end = index
            while end < scalars.count, scalars[end] != "\n", !scalars[end].properties.isWhitespace, scalars[end] != "`" {
                end += 1
            }
            if end < scalars.count, scalars[end] == "\n" {
                if end > index { language = String(String.UnicodeScalarView(scalars[index..<end])) }
                index = end + 1
            }
        }
        let start = out.offset
        while index < scalars.count {
            if scalars[index] == "\\", let next = at(1), next == "`" || next == "\\" {
                out.append(next)
                index += 2
                continue
            }
            if fence ? starts(with: "```") : scalars[index] == "`" {
                index += fence ? 3 : 1
                if fence {
                    out.entity("pre", from: start, language: language)
                } else {
                    out.entity("code", from: start)
                }
                return
            }
            out.append(scalars[index])
            index += 1
        }
        throw FormattingError("can't find end of \(fence ? "pre" : "code") entity")
    }

    /// `](url)` closes the link or custom emoji opened last.
    private mutating func closeLink() throws {
        guard let position = open.lastIndex(where: { $0.marker == "[" || $0.marker == "![" }) else {
            out.append("]")
            index += 1
            return
        }
        guard at(1) == "(" else { throw FormattingError("can't find the URL of a link: '](' expected") }
        index += 2
        var url = String.UnicodeScalarView()
        while index < scalars.count, scalars[index] != ")" {
            if scalars[index] == "\\", let next = at(1) {
                url.append(next)
                index += 2
            } else {
                url.append(scalars[index])
                index += 1
            }
        }
        guard index < scalars.count else { throw FormattingError("can't find end of a URL") }
        index += 1
        let opener = open.remove(at: position)
        let target = String(url)
        if opener.marker == "![" {
            let id = target.split(separator: "=").last.map(String.init)
            out.entity("custom_emoji", from: opener.start, customEmojiId: id)
        } else {
            out.entity("text_link", from: opener.start, url: target)
        }
    }
}
