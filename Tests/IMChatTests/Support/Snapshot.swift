import Foundation
import IMChat
import Testing

/// Golden screens: a frame's text compared with `Snapshots/<name>.txt` in the repository.
///
/// `UPDATE_SNAPSHOTS=1 swift test --filter GoldenScreenTests` rewrites the files from
/// the current code (then review the diff before committing it). A missing file fails
/// the test rather than being written, so a clean checkout never passes by itself.
enum Snapshot {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Snapshots")

    static func check(_ grid: CellGrid, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // One line per row (trailing spaces trimmed) between borders as wide as the grid,
        // then the same rows as a mask of the styles: R reversed (selection, title bar),
        // B on a background colour (fields, avatars, badges), s other colours or bold.
        let border = "+" + String(repeating: "-", count: grid.width) + "+"
        var text = border + "\n"
        for line in grid.lines { text += "|" + line + "\n" }
        text += border + "\n"
        for row in 0..<grid.height {
            var mask = ""
            for column in 0..<grid.width {
                let style = grid[column, row].style
                mask += style.reverse ? "R" : style.background != nil ? "B"
                    : (style.foreground != nil || style.bold || style.underline || style.dim) ? "s" : " "
            }
            text += "|" + mask.trimmingTrailingSpaces() + "\n"
        }
        text += border + "\n"
        let url = folder.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        guard let stored = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("no snapshot \(url.path): run UPDATE_SNAPSHOTS=1 swift test --filter GoldenScreenTests", sourceLocation: sourceLocation)
            return
        }
        if stored != text {
            let old = stored.split(separator: "\n", omittingEmptySubsequences: false)
            let new = text.split(separator: "\n", omittingEmptySubsequences: false)
            let first = (0..<min(old.count, new.count)).first { old[$0] != new[$0] } ?? min(old.count, new.count)
            Issue.record(
                """
                screen '\(name)' differs from \(url.lastPathComponent) from row \(first - 1):
                stored: \(first < old.count ? String(old[first]) : "(none)")
                now:    \(first < new.count ? String(new[first]) : "(none)")
                whole screen now:
                \(text)
                """, sourceLocation: sourceLocation)
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
