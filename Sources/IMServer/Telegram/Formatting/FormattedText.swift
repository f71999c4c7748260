/// Text and its entities as a parse mode is read: plain text is appended while the
/// entities' offsets are kept in UTF-16 code units, as Telegram counts them.
struct FormattedText {
    private(set) var text = String.UnicodeScalarView()
    /// The text's length so far, in UTF-16 code units.
    private(set) var offset = 0
    private(set) var entities: [TGEntity] = []

    mutating func append(_ scalar: Unicode.Scalar) {
        text.append(scalar)
        offset += scalar.utf16.count
    }

    mutating func append(_ string: String) {
        for scalar in string.unicodeScalars { append(scalar) }
    }

    /// Adds an entity from `start` to `end` (here, by default); an empty one is dropped.
    mutating func entity(_ type: String, from start: Int, to end: Int? = nil, url: String? = nil,
                         language: String? = nil, customEmojiId: String? = nil) {
        let end = end ?? offset
        guard end > start else { return }
        entities.append(
            TGEntity(type: type, offset: start, length: end - start, url: url, language: language,
                     customEmojiId: customEmojiId))
    }

    /// The text, and its entities in the order Telegram lists them: by offset, the longer
    /// (outer) first.
    func result() -> (String, [TGEntity]) {
        (String(text), entities.sorted { ($0.offset, -$0.length) < ($1.offset, -$1.length) })
    }
}

/// Why a text did not parse in its parse mode: Telegram's words, which bots log.
struct FormattingError: Error {
    var description: String

    init(_ description: String) { self.description = description }

    var telegram: TelegramError { .badRequest("can't parse entities: \(description)") }
}

/// The parse modes of `sendMessage` and `editMessageText`: each turns its markup into
/// plain text and entities (Switchboard stores the plain text; the answer carries the
/// entities).
enum ParseMode {
    case markdownV2
    case html
    case markdown

    /// The mode a `parse_mode` value names (any case); nil for none, a 400 for another.
    init?(_ name: String?) throws {
        guard let name, !name.isEmpty else { return nil }
        switch name.lowercased() {
        case "markdownv2": self = .markdownV2
        case "html": self = .html
        case "markdown": self = .markdown
        default: throw TelegramError.badRequest("unsupported parse_mode '\(name)': use MarkdownV2, HTML or Markdown")
        }
    }

    func parse(_ text: String) throws -> (String, [TGEntity]) {
        do {
            switch self {
            case .markdownV2:
                var parser = MarkdownV2Parser(text)
                return try parser.parse()
            case .html:
                var parser = HTMLParser(text)
                return try parser.parse()
            case .markdown:
                var parser = LegacyMarkdownParser(text)
                return try parser.parse()
            }
        } catch let error as FormattingError {
            throw error.telegram
        }
    }
}
