/// Turns frames into the few ANSI bytes that change the terminal from the last frame to
/// the next: unchanged cells are not sent, so a redraw never flickers.
///
/// Only plain sequences every terminal knows are used (CUP, SGR, ED, DECTCEM). After a
/// cluster outside ASCII the cursor is placed anew, so a terminal that draws it at
/// another width than the table says misplaces at most that cell, not the rest of the row.
/// A wide cluster is drawn over two spaces written first: a terminal (tmux among them)
/// that keeps what stood in its right half, or draws the cluster one column wide, shows
/// a blank there, never a stale character.
///
/// Pictures (`CellGrid.images`) are drawn after the cells, in the terminal's protocol:
/// with kitty's they are removed and placed again whenever the placements change; sixel
/// graphics are part of the cells they cover, so a picture is drawn again when a cell
/// under it was, and the cells under one that went are drawn anew.
public struct ScreenRenderer: Sendable {
    private var previous: CellGrid?
    /// How pictures are drawn, and the bytes that draw one at the cursor (nil: not
    /// ready, the cells show instead).
    private let graphics: TerminalGraphics
    private let picture: @Sendable (ImagePlacement) -> String?

    /// A renderer whose first frame redraws everything; `picture` gives the bytes that
    /// draw a placement's picture in `graphics`' protocol.
    public init(graphics: TerminalGraphics = .none, picture: @escaping @Sendable (ImagePlacement) -> String? = { _ in nil }) {
        self.graphics = graphics
        self.picture = picture
    }

    /// Forgets the last frame: the next one is drawn in full (after a resize, a resume
    /// from suspension, or anything else that may have changed the screen).
    public mutating func invalidate() { previous = nil }

    /// The bytes that bring the terminal from the last frame to `frame`.
    public mutating func render(_ frame: CellGrid) -> String {
        var out = "\u{1B}[?25l"
        let old = previous.flatMap { $0.width == frame.width && $0.height == frame.height ? $0 : nil }
        if old == nil { out += "\u{1B}[0m\u{1B}[2J" }
        let moved = old?.images != frame.images
        // Sixel pictures that went leave pixels on cells the grid never changed.
        let uncover = graphics == .sixel && moved ? old?.images ?? [] : []
        var touched: [ImagePlacement] = []
        var current: Style?
        for row in 0..<frame.height {
            var cursorAt: Int?
            var column = 0
            while column < frame.width {
                let cell = frame[column, row]
                let changed = old.map { Self.differs($0, frame, column, row) } ?? (cell != .blank)
                    || uncover.contains { $0.covers(column, row) }
                guard changed, !cell.isContinuation else {
                    column += 1
                    continue
                }
                touched += frame.images.filter { $0.covers(column, row) && !touched.contains($0) }
                if cursorAt != column { out += "\u{1B}[\(row + 1);\(column + 1)H" }
                if current != cell.style {
                    out += cell.style.sgr
                    current = cell.style
                }
                let wide = column + 1 < frame.width && frame[column + 1, row].isContinuation
                if wide { out += "  \u{1B}[\(row + 1);\(column + 1)H" }
                out += cell.text
                column += wide ? 2 : 1
                cursorAt = cell.text.utf8.count == 1 ? column : nil
            }
        }
        out += "\u{1B}[0m"
        out += pictures(frame, moved: moved || old == nil, touched: touched)
        if let cursor = frame.cursor {
            out += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h"
        }
        previous = frame
        return out
    }

    /// The bytes that draw the frame's pictures that need it.
    private func pictures(_ frame: CellGrid, moved: Bool, touched: [ImagePlacement]) -> String {
        var out = ""
        switch graphics {
        case .none:
            return ""
        case .kitty:
            guard moved else { return "" }
            out += KittyImage.clear
            for placement in frame.images { out += place(placement) }
        case .sixel:
            for placement in frame.images where moved || touched.contains(placement) { out += place(placement) }
        }
        return out
    }

    private func place(_ placement: ImagePlacement) -> String {
        guard let bytes = picture(placement) else { return "" }
        return "\u{1B}[\(placement.row + 1);\(placement.column + 1)H" + bytes
    }

    /// True when the cell, or the wide cluster it belongs to, differs between frames.
    private static func differs(_ old: CellGrid, _ new: CellGrid, _ column: Int, _ row: Int) -> Bool {
        if old[column, row] != new[column, row] { return true }
        // A wide cluster is redrawn whole when its right half changed.
        return column + 1 < new.width && new[column + 1, row].isContinuation
            && old[column + 1, row] != new[column + 1, row]
    }
}
