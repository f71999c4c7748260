/// One cell of the screen: a grapheme cluster (or the right half of a wide one) and its style.
public struct Cell: Hashable, Sendable {
    /// The cluster drawn here; empty for the right half of a wide cluster.
    public var text: String
    public var style: Style

    /// A cell showing `text`.
    public init(_ text: String = " ", style: Style = .plain) {
        self.text = text
        self.style = style
    }

    /// True for the right half of a wide cluster, drawn by the cell to its left.
    public var isContinuation: Bool { text.isEmpty }

    static let blank = Cell()
}

/// A picture over a block of cells (an avatar, where the terminal draws images).
public struct ImagePlacement: Hashable, Sendable {
    /// Which picture: the image's URL, or `local:<username>` for one kept on this machine.
    public var key: String
    public var column: Int
    public var row: Int
    public var columns: Int
    public var rows: Int

    public init(key: String, column: Int, row: Int, columns: Int, rows: Int) {
        self.key = key
        self.column = column
        self.row = row
        self.columns = columns
        self.rows = rows
    }

    /// True when the cell lies under the picture.
    func covers(_ column: Int, _ row: Int) -> Bool {
        (self.column..<self.column + columns).contains(column) && (self.row..<self.row + rows).contains(row)
    }
}

/// The whole screen in memory: views draw into it, the renderer sends only what changed
/// since the last frame, and golden tests compare its text with stored snapshots.
public struct CellGrid: Equatable, Sendable {
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    private(set) var cells: [Cell]
    /// Where the terminal's cursor goes after drawing (a text field's caret), or nil to hide it.
    public var cursor: (column: Int, row: Int)?
    /// Pictures drawn over the cells, in order.
    public var images: [ImagePlacement] = []

    /// A blank grid.
    public init(width: Int, height: Int) {
        self.width = max(width, 1)
        self.height = max(height, 1)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// The cell at a position (blank outside the grid).
    public subscript(column: Int, row: Int) -> Cell {
        guard (0..<width).contains(column), (0..<height).contains(row) else { return .blank }
        return cells[row * width + column]
    }

    /// Writes `text` from `column` on `row` as one line, clipped at `limit` columns
    /// (default: the right edge); returns the column after the last cell written. The
    /// text passes `TerminalText.sanitize` here, the one way into the grid, so nothing a
    /// caller forgot to clean can steer the terminal (newlines and tabs become spaces). A
    /// wide cluster that does not fit whole is left out, never drawn in half.
    @discardableResult
    public mutating func put(
        _ text: some StringProtocol, column: Int, row: Int, style: Style = .plain, limit: Int? = nil,
        widths: WidthTable = .standard
    ) -> Int {
        guard (0..<height).contains(row) else { return column }
        let end = min(width, limit.map { column + $0 } ?? width)
        var x = column
        for cluster in TerminalText.sanitize(text) {
            let w = widths.width(of: cluster)
            guard w > 0 else { continue }
            if x + w > end { break }
            if x >= 0 {
                set(Cell(String(cluster), style: style), column: x, row: row)
                if w == 2 { set(Cell("", style: style), column: x + 1, row: row) }
            }
            x += w
        }
        return x
    }

    /// Paints `count` cells from `column` with spaces in `style`.
    public mutating func fill(row: Int, column: Int = 0, count: Int? = nil, style: Style = .plain) {
        guard (0..<height).contains(row) else { return }
        let start = max(column, 0)
        let stop = min(width, count.map { column + $0 } ?? width)
        guard start < stop else { return }
        for x in start..<stop { set(Cell(" ", style: style), column: x, row: row) }
    }

    /// Sets one cell; overwriting half of a wide cluster blanks its other half.
    private mutating func set(_ cell: Cell, column: Int, row: Int) {
        let index = row * width + column
        if cells[index].isContinuation, column > 0, !cell.isContinuation, !cells[index - 1].isContinuation {
            cells[index - 1] = Cell(" ", style: cells[index - 1].style)
        }
        if !cells[index].isContinuation, column + 1 < width, cells[index + 1].isContinuation, cell.text.count > 0 {
            cells[index + 1] = Cell(" ", style: cells[index + 1].style)
        }
        cells[index] = cell
    }

    /// The rows as text (right halves of wide clusters left out, trailing spaces trimmed):
    /// what golden-screen snapshots store.
    public var lines: [String] {
        (0..<height).map { row in
            var line = ""
            for column in 0..<width {
                let cell = cells[row * width + column]
                if !cell.isContinuation { line += cell.text }
            }
            return line.trimmingTrailingSpaces()
        }
    }

    /// All rows joined by newlines.
    public var text: String { lines.joined(separator: "\n") }

    public static func == (lhs: CellGrid, rhs: CellGrid) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.cells == rhs.cells
            && lhs.cursor?.column == rhs.cursor?.column && lhs.cursor?.row == rhs.cursor?.row && lhs.images == rhs.images
    }
}
