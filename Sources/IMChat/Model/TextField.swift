/// A one-line (or, for messages, multi-line) text input with a caret, edited by keys the
/// way readline users expect: arrows, Home/End, Ctrl-A/E, Ctrl-U/K/W, Backspace/Delete.
public struct TextField: Sendable, Equatable {
    /// The text typed so far, as grapheme clusters.
    public private(set) var characters: [Character]
    /// The caret, as an index into `characters`.
    public private(set) var caret: Int
    /// Shown as bullets (passwords).
    public var secret: Bool
    /// The most characters the field takes.
    public var limit: Int

    /// A field holding `text`, the caret at its end.
    public init(_ text: String = "", secret: Bool = false, limit: Int = 256) {
        characters = Array(text)
        caret = characters.count
        self.secret = secret
        self.limit = limit
    }

    /// The text.
    public var text: String { String(characters) }

    /// True when nothing is typed.
    public var isEmpty: Bool { characters.isEmpty }

    /// Replaces the text, caret at the end.
    public mutating func set(_ text: String) {
        characters = Array(text.prefix(limit))
        caret = characters.count
    }

    /// Applies an editing key; false when the key is not an editing key (the screen handles it).
    @discardableResult
    public mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .character(let character):
            insert(String(character))
        case .paste(let text):
            insert(text)
        case .backspace:
            guard caret > 0 else { return true }
            characters.remove(at: caret - 1)
            caret -= 1
        case .delete, .control("d"):
            guard caret < characters.count else { return true }
            characters.remove(at: caret)
        case .left, .control("b"):
            caret = max(0, caret - 1)
        case .right, .control("f"):
            caret = min(characters.count, caret + 1)
        case .home, .control("a"):
            caret = 0
        case .end, .control("e"):
            caret = characters.count
        case .control("u"):
            characters.removeFirst(caret)
            caret = 0
        case .control("k"):
            characters.removeLast(characters.count - caret)
        case .control("w"):
            var start = caret
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<caret)
            caret = start
        default:
            return false
        }
        return true
    }

    private mutating func insert(_ text: String) {
        // Only newlines of a paste survive; other controls would steer the terminal.
        let clean = Array(TextLayout.sanitize(text, keepNewlines: true))
        let room = max(0, limit - characters.count)
        let accepted = clean.prefix(room)
        characters.insert(contentsOf: accepted, at: caret)
        caret += accepted.count
    }

    /// What the field shows in `width` columns and where the caret is in it: the text
    /// (bullets when secret, newlines as `⏎`), scrolled so the caret stays in view.
    public func visible(width: Int, layout: TextLayout) -> (text: String, caretColumn: Int) {
        let shown: [Character] = secret
            ? Array(repeating: "•", count: characters.count) : characters.map { $0 == "\n" ? "⏎" : $0 }
        let widths = shown.map { layout.widths.width(of: $0) }
        var start = 0
        var before = widths[0..<caret].reduce(0, +)
        // Keep one column free for the caret at the end.
        while before > width - 1, start < caret {
            before -= widths[start]
            start += 1
        }
        var text = ""
        var used = 0
        var index = start
        while index < shown.count, used + widths[index] <= width {
            text.append(shown[index])
            used += widths[index]
            index += 1
        }
        return (text, before)
    }
}
