/// Drawing helpers the views share, on top of `CellGrid`.
struct Canvas {
    var grid: CellGrid
    let text: TextLayout

    init(columns: Int, rows: Int, text: TextLayout) {
        grid = CellGrid(width: columns, height: rows)
        self.text = text
    }

    var width: Int { grid.width }
    var height: Int { grid.height }

    /// Writes `string` (sanitized by the grid); returns the column after it.
    @discardableResult
    mutating func put(_ string: String, _ column: Int, _ row: Int, _ style: Style = .plain, limit: Int? = nil) -> Int {
        grid.put(string, column: column, row: row, style: style, limit: limit, widths: text.widths)
    }

    /// Writes `string` centred on `row`.
    mutating func center(_ string: String, _ row: Int, _ style: Style = .plain) {
        let clean = text.truncate(TextLayout.sanitize(string), width: width)
        put(clean, max(0, (width - text.width(clean)) / 2), row, style)
    }

    mutating func fill(_ row: Int, _ style: Style, from column: Int = 0, count: Int? = nil) {
        grid.fill(row: row, column: column, count: count, style: style)
    }

    /// The top bar: `left` and `right` on a reversed row.
    mutating func titleBar(_ left: [(String, Style)], right: String) {
        fill(0, .title)
        var column = 1
        for (string, style) in left { column = put(string, column, 0, style) }
        let rightWidth = text.width(right)
        if column + rightWidth + 1 < width { put(right, width - rightWidth - 1, 0, .title) }
    }

    /// The bottom row: key hints, or a status message in their place. A message wider
    /// than the row is shown whole, wrapped in a box that grows upwards from the row.
    mutating func helpBar(
        _ hints: [(key: String, label: String)], status: (text: String, isError: Bool)?, style: Style? = nil,
        footer: String = "any key closes this"
    ) {
        let row = height - 1
        fill(row, .plain)
        if let status {
            let shown = style ?? (status.isError ? .error : .success)
            let lines = text.wrap(TextLayout.sanitize(status.text), width: max(10, width - 4))
            if lines.count == 1 {
                put(lines[0], 1, row, shown)
                return
            }
            // Up to half the screen; the last line ends in "…" only when even that is not enough.
            let most = max(1, height / 2 - 1)
            var body = Array(lines.prefix(most))
            if lines.count > most, let last = body.popLast() { body.append(text.truncate(last + " …", width: width - 4)) }
            let top = max(0, height - body.count - 3)
            box(0, top, width, body.count + 2)
            for (offset, line) in body.enumerated() { put(line, 2, top + 1 + offset, shown) }
            fill(row, .plain)
            put(footer, 2, row, .help)
            return
        }
        var column = 1
        for hint in hints {
            let needed = text.width(hint.key) + text.width(hint.label) + 3
            if column + needed > width { break }
            column = put(hint.key, column, row, .helpKey)
            column = put(" " + hint.label + "  ", column, row, .help)
        }
    }

    /// A one-line input field of `width` columns; places the terminal's cursor when focused.
    mutating func field(_ field: TextField, _ column: Int, _ row: Int, width fieldWidth: Int, focused: Bool) {
        let style: Style = focused ? .focusedField : .field
        put("[", column - 1, row, .muted)
        put("]", column + fieldWidth, row, .muted)
        fill(row, style, from: column, count: fieldWidth)
        let shown = field.visible(width: fieldWidth, layout: text)
        put(shown.text, column, row, style, limit: fieldWidth)
        if focused { grid.cursor = (column + shown.caretColumn, row) }
    }

    /// A button label, highlighted when focused.
    @discardableResult
    mutating func button(_ label: String, _ column: Int, _ row: Int, focused: Bool) -> Int {
        put("[ \(label) ]", column, row, focused ? .focusedField : .plain)
    }

    /// An avatar as a coloured block of `columns`×`rows` with the initials in the middle,
    /// or, given a picture ready to draw, blank cells the picture goes over.
    mutating func avatar(_ avatar: Avatar, _ column: Int, _ row: Int, columns: Int = 2, rows: Int = 1, picture: String? = nil) {
        if let picture {
            for offset in 0..<rows { fill(row + offset, .plain, from: column, count: columns) }
            grid.images.append(ImagePlacement(key: picture, column: column, row: row, columns: columns, rows: rows))
            return
        }
        for offset in 0..<rows { fill(row + offset, avatar.style, from: column, count: columns) }
        put(avatar.initials, column + (columns - 2) / 2, row + rows / 2, avatar.style)
    }

    /// A frame drawn with box characters.
    mutating func box(_ column: Int, _ row: Int, _ boxWidth: Int, _ boxHeight: Int, title: String? = nil) {
        guard boxWidth >= 2, boxHeight >= 2 else { return }
        let horizontal = String(repeating: "─", count: boxWidth - 2)
        put("┌" + horizontal + "┐", column, row, .muted)
        for offset in 1..<(boxHeight - 1) {
            fill(row + offset, .plain, from: column, count: boxWidth)
            put("│", column, row + offset, .muted)
            put("│", column + boxWidth - 1, row + offset, .muted)
        }
        put("└" + horizontal + "┘", column, row + boxHeight - 1, .muted)
        if let title { put(" \(title) ", column + 2, row, .heading) }
    }
}
