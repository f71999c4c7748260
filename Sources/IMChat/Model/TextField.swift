/// A text input with a caret, edited by keys the way readline users expect: arrows,
/// Home/End, Ctrl-A/E, Ctrl-U/K/W, Alt-B/F/D, Backspace/Delete; a multi-line one also
/// takes line breaks (Alt-Enter, a paste) and moves between its lines with ↑↓.
///
/// The text is kept exactly as typed or pasted: a zero-width joiner, a variation
/// selector or a combining mark typed on its own joins the character before it, as it
/// does in the text that is sent. Only what the field shows is made safe for the
/// terminal (a mark with nothing to sit on gets the dotted circle there, never in the
/// text); control characters, which mean nothing in a message, are not taken.
public struct TextField: Sendable, Equatable {
    /// The text typed so far, exactly.
    public private(set) var text: String
    /// The caret, as a count of grapheme clusters from the start.
    public private(set) var caret: Int
    /// Shown as bullets (passwords).
    public var secret: Bool
    /// The most grapheme clusters the field takes.
    public var limit: Int
    /// Takes line breaks (a message); otherwise a pasted line break becomes a space.
    public var multiline: Bool
    /// Characters of the last insertion that did not fit under `limit` (0: all went in),
    /// so the screen can say so instead of cutting silently.
    public private(set) var refused = 0

    /// A field holding `text`, the caret at its end.
    public init(_ text: String = "", secret: Bool = false, limit: Int = 256, multiline: Bool = false) {
        self.secret = secret
        self.limit = limit
        self.multiline = multiline
        self.text = ""
        self.caret = 0
        set(text)
    }

    /// The text as grapheme clusters.
    public var characters: [Character] { Array(text) }

    /// True when nothing is typed.
    public var isEmpty: Bool { text.isEmpty }

    /// Replaces the text, caret at the end.
    public mutating func set(_ text: String) {
        self.text = String(text.prefix(limit))
        caret = self.text.count
        refused = 0
    }

    /// Applies an editing key; false when the key is not an editing key (the screen handles it).
    @discardableResult
    public mutating func edit(_ key: Key) -> Bool {
        refused = 0
        var clusters = characters
        switch key {
        case .character(let character):
            insert(String(character))
            return true
        case .paste(let pasted):
            insert(pasted)
            return true
        case .newline:
            guard multiline else { return false }
            insert("\n")
            return true
        case .backspace:
            guard caret > 0 else { return true }
            clusters.remove(at: caret - 1)
            caret -= 1
        case .delete, .control("d"):
            guard caret < clusters.count else { return true }
            clusters.remove(at: caret)
        case .left, .control("b"):
            caret = max(0, caret - 1)
        case .right, .control("f"):
            caret = min(clusters.count, caret + 1)
        case .home, .control("a"):
            caret = lineStart(clusters)
        case .end, .control("e"):
            caret = lineEnd(clusters)
        case .up where multiline:
            guard let moved = verticalMove(clusters, up: true) else { return false }
            caret = moved
        case .down where multiline:
            guard let moved = verticalMove(clusters, up: false) else { return false }
            caret = moved
        case .control("u"):
            let start = lineStart(clusters)
            clusters.removeSubrange(start..<caret)
            caret = start
        case .control("k"):
            clusters.removeSubrange(caret..<lineEnd(clusters))
        case .control("w"):
            let start = wordStart(clusters)
            clusters.removeSubrange(start..<caret)
            caret = start
        case .alt("b"):
            caret = wordStart(clusters)
        case .alt("f"):
            caret = wordEnd(clusters)
        case .alt("d"):
            clusters.removeSubrange(caret..<wordEnd(clusters))
        default:
            return false
        }
        text = String(clusters)
        caret = min(caret, text.count)
        return true
    }

    /// Inserts `typed` at the caret as far as the limit allows. The clusters around the
    /// caret are formed anew, so a joiner or mark typed after a character joins it.
    private mutating func insert(_ typed: String) {
        var clean = String.UnicodeScalarView()
        var previousCR = false
        for scalar in typed.unicodeScalars {
            defer { previousCR = scalar == "\r" }
            switch scalar.value {
            case 0x0A where previousCR:
                continue  // CR LF: one line end, taken at the CR
            case 0x0D, 0x0A:
                clean.append(multiline ? "\n" : " ")
            case 0x09:
                clean.append(multiline ? "\t" : " ")
            case 0x00..<0x20, 0x7F...0x9F:
                continue  // a control character means nothing in text
            default:
                clean.append(scalar)
            }
        }
        let all = characters
        let before = String(all[..<caret])
        let after = String(all[caret...])
        var inserted = String(clean)
        let room = max(0, limit - all.count)
        let count = inserted.count
        if count > room {
            inserted = String(inserted.prefix(room))
            refused = count - room
        }
        let head = before + inserted
        text = head + after
        caret = min(head.count, text.count)
    }

    /// The start of the caret's line (multi-line) or of the text.
    private func lineStart(_ clusters: [Character]) -> Int {
        var index = caret
        while index > 0, clusters[index - 1] != "\n" { index -= 1 }
        return index
    }

    /// The end of the caret's line (multi-line) or of the text.
    private func lineEnd(_ clusters: [Character]) -> Int {
        var index = caret
        while index < clusters.count, clusters[index] != "\n" { index += 1 }
        return index
    }

    private func wordStart(_ clusters: [Character]) -> Int {
        var start = caret
        while start > 0, clusters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !clusters[start - 1].isWhitespace { start -= 1 }
        return start
    }

    private func wordEnd(_ clusters: [Character]) -> Int {
        var end = caret
        while end < clusters.count, clusters[end].isWhitespace { end += 1 }
        while end < clusters.count, !clusters[end].isWhitespace { end += 1 }
        return end
    }

    /// The caret one line up or down, as near its column as the line allows; nil on the
    /// first (last) line.
    private func verticalMove(_ clusters: [Character], up: Bool) -> Int? {
        let start = lineStart(clusters)
        let column = caret - start
        if up {
            guard start > 0 else { return nil }
            var previous = start - 1
            while previous > 0, clusters[previous - 1] != "\n" { previous -= 1 }
            return min(previous + column, start - 1)
        }
        let end = lineEnd(clusters)
        guard end < clusters.count else { return nil }
        var nextEnd = end + 1
        while nextEnd < clusters.count, clusters[nextEnd] != "\n" { nextEnd += 1 }
        return min(end + 1 + column, nextEnd)
    }

    /// How a cluster is shown: bullets when secret, made safe for the terminal (the dotted
    /// circle under a lone mark appears here only), a line break as `⏎` on one line.
    private func shown(_ character: Character, layout: TextLayout) -> (text: String, width: Int) {
        if secret { return ("•", 1) }
        if character == "\n" { return ("⏎", 1) }
        if character == "\t" { return (" ", 1) }
        let clean = TerminalText.sanitize(String(character))
        return (clean, layout.width(clean))
    }

    /// What the field shows in `width` columns on one line and where the caret is in it:
    /// scrolled so the caret stays in view.
    public func visible(width: Int, layout: TextLayout) -> (text: String, caretColumn: Int) {
        let shown = characters.map { self.shown($0, layout: layout) }
        var start = 0
        var before = shown[0..<caret].reduce(0) { $0 + $1.width }
        // Keep one column free for the caret at the end.
        while before > width - 1, start < caret {
            before -= shown[start].width
            start += 1
        }
        var text = ""
        var used = 0
        var index = start
        while index < shown.count, used + shown[index].width <= width {
            text += shown[index].text
            used += shown[index].width
            index += 1
        }
        return (text, before)
    }

    /// The text cut into rows of at most `width` columns (line breaks end a row) and the
    /// caret's row and column: how a multi-line input shows it.
    public func rows(width: Int, layout: TextLayout) -> (rows: [String], caretRow: Int, caretColumn: Int) {
        let limit = max(width, 2)
        var rows: [String] = [""]
        var used = 0
        var caretAt = (row: 0, column: 0)
        for (index, character) in characters.enumerated() {
            if index == caret { caretAt = (rows.count - 1, used) }
            if character == "\n" {
                rows.append("")
                used = 0
                continue
            }
            let piece = shown(character, layout: layout)
            if used + piece.width > limit {
                rows.append("")
                used = 0
                if index == caret { caretAt = (rows.count - 1, 0) }
            }
            rows[rows.count - 1] += piece.text
            used += piece.width
        }
        if caret >= characters.count {
            // Past the end: after the last row, or at the start of a new one when it is full.
            if used >= limit {
                rows.append("")
                used = 0
            }
            caretAt = (rows.count - 1, used)
        }
        return (rows, caretAt.row, caretAt.column)
    }
}
