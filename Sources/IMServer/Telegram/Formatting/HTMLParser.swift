/// Telegram's HTML: `<b>`/`<strong>`, `<i>`/`<em>`, `<u>`/`<ins>`, `<s>`/`<strike>`/`<del>`,
/// `<tg-spoiler>` and `<span class="tg-spoiler">`, `<a href>`, `<tg-emoji emoji-id>`,
/// `<code>`, `<pre>` (with `<code class="language-…">` inside for the language), and
/// `<blockquote>` (`expandable`); `&lt;`, `&gt;`, `&amp;`, `&quot;` and numeric
/// references. Other tags, and tags that do not nest, are refused as Telegram refuses them.
struct HTMLParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var out = FormattedText()
    /// A tag not closed yet, and the entity its closing makes (none for a `<code>` that
    /// only names its `<pre>`'s language).
    private struct Open {
        var tag: String
        var type: String?
        var start: Int
        var url: String?
        var emoji: String?
        var language: String?
    }

    private var open: [Open] = []

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    mutating func parse() throws -> (String, [TGEntity]) {
        while index < scalars.count {
            switch scalars[index] {
            case "<": try tag()
            case "&": reference()
            default:
                out.append(scalars[index])
                index += 1
            }
        }
        if let unclosed = open.last { throw FormattingError("can't find end tag corresponding to start tag \"\(unclosed.tag)\"") }
        return out.result()
    }

    /// `&name;` or `&#…;`; anything else is a literal `&`.
    private mutating func reference() {
        var end = index + 1
        while end < scalars.count, end - index <= 10, scalars[end] != ";" { end += 1 }
        guard end < scalars.count, scalars[end] == ";" else {
            out.append("&")
            index += 1
            return
        }
        let name = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
        let value: Unicode.Scalar? =
            switch name {
            case "lt": "<"
            case "gt": ">"
            case "amp": "&"
            case "quot": "\""
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if name.hasPrefix("#") {
                    UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init)
                } else {
                    nil
                }
            }
        if let value {
            out.append(value)
            index = end + 1
        } else {
            out.append("&")
            index += 1
        }
    }

    private mutating func tag() throws {
        let start = index
        index += 1
        let closing = index < scalars.count && scalars[index] == "/"
        if closing { index += 1 }
        let name = word().lowercased()
        guard !name.isEmpty else {
            // A '<' that starts no tag: Telegram wants it written as &lt;.
            throw FormattingError("unexpected '<' at character \(start): write it as &lt;")
        }
        var attributes: [String: String] = [:]
        while true {
            skipBlanks()
            guard index < scalars.count else { throw FormattingError("unclosed start tag at character \(start)") }
            if scalars[index] == ">" {
                index += 1
                break
            }
            let attribute = word().lowercased()
            guard !attribute.isEmpty else { throw FormattingError("unexpected character in the tag at character \(index)") }
            skipBlanks()
            if index < scalars.count, scalars[index] == "=" {
                index += 1
                skipBlanks()
                attributes[attribute] = try value()
            } else {
                attributes[attribute] = ""
            }
        }
        if closing {
            guard let top = open.last, top.tag == name else {
                throw FormattingError("unmatched end tag at character \(start), expected \"</\(open.last?.tag ?? "")>\", found \"</\(name)>\"")
            }
            open.removeLast()
            if let type = top.type {
                out.entity(type, from: top.start, url: top.url, language: top.language, customEmojiId: top.emoji)
            }
            return
        }
        try opening(name, attributes)
    }

    private mutating func opening(_ name: String, _ attributes: [String: String]) throws {
        var type: String?
        var url: String?
        var emoji: String?
        switch name {
        case "b", "strong": type = "bold"
        case "i", "em": type = "italic"
        case "u", "ins": type = "underline"
        case "s", "strike", "del": type = "strikethrough"
        case "tg-spoiler": type = "spoiler"
        case "span":
            guard attributes["class"] == "tg-spoiler" else { throw FormattingError("tag \"span\" must have class \"tg-spoiler\"") }
            type = "spoiler"
        case "a":
            type = "text_link"
            url = attributes["href"] ?? ""
        case "tg-emoji":
            type = "custom_emoji"
            emoji = attributes["emoji-id"]
        case "blockquote":
            type = attributes["expandable"] != nil ? "expandable_blockquote" : "blockquote"
        case "pre":
            type = "pre"
        case "code":
            // Inside <pre>, a language: the pre entity carries it.
            if let pre = open.last, pre.tag == "pre", let language = attributes["class"], language.hasPrefix("language-") {
                open[open.count - 1].language = String(language.dropFirst("language-".count))
                open.append(Open(tag: name, start: out.offset))
                return
            }
            type = "code"
        default:
            throw FormattingError("unsupported start tag \"\(name)\"")
        }
        open.append(Open(tag: name, type: type, start: out.offset, url: url, emoji: emoji))
    }

    private mutating func word() -> String {
        var name = String.UnicodeScalarView()
        while index < scalars.count,
            scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index]) || scalars[index] == "-"
                || scalars[index] == "_"
        {
            name.append(scalars[index])
            index += 1
        }
        return String(name)
    }

    private mutating func skipBlanks() {
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
    }

    /// A quoted or bare attribute value, with its references decoded.
    private mutating func value() throws -> String {
        guard index < scalars.count else { throw FormattingError("unclosed start tag") }
        var raw = String.UnicodeScalarView()
        if scalars[index] == "\"" || scalars[index] == "'" {
            let quote = scalars[index]
            index += 1
            while index < scalars.count, scalars[index] != quote {
                raw.append(scalars[index])
                index += 1
            }
            guard index < scalars.count else { throw FormattingError("unclosed attribute value") }
            index += 1
        } else {
            while index < scalars.count, scalars[index] != ">", !scalars[index].properties.isWhitespace {
                raw.append(scalars[index])
                index += 1
            }
        }
        var decoded = HTMLParser(String(raw))
        while decoded.index < decoded.scalars.count {
            if decoded.scalars[decoded.index] == "&" {
                decoded.reference()
            } else {
                decoded.out.append(decoded.scalars[decoded.index])
                decoded.index += 1
            }
        }
        return decoded.out.result().0
    }
}
