/// Text made safe for a terminal and cut into lines by display width, one grapheme
/// cluster at a time: a cluster is never split, a wide one never straddles the edge.
public struct TextLayout: Sendable {
    /// The widths everything is measured with.
    public let widths: WidthTable

    /// A layout measuring with `widths`.
    public init(widths: WidthTable = .standard) {
        self.widths = widths
    }

    /// `text` safe for the terminal (`TerminalText.sanitize`); newlines stay when
    /// `keepNewlines`, else they become a space.
    public static func sanitize(_ text: String, keepNewlines: Bool = false) -> String {
        TerminalText.sanitize(text, keeping: keepNewlines ? .newlines : [])
    }

    /// The columns `text` takes.
    public func width(_ text: some StringProtocol) -> Int { widths.width(of: text) }

    /// Lines of at most `width` columns: breaks after a space where one is in reach,
    /// else between clusters; newlines in `text` end a line.
    public func wrap(_ text: String, width: Int) -> [String] {
        let limit = max(width, 2)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            // Where the line could break: the index after the last space, and the width up to it.
            var breakAt: (index: String.Index, width: Int)?
            var wrapped = false
            for cluster in paragraph {
                let clusterWidth = widths.width(of: cluster)
                while lineWidth + clusterWidth > limit, !line.isEmpty {
                    if let point = breakAt, point.index < line.endIndex {
                        let rest = String(line[point.index...])
                        lines.append(String(line[..<point.index]).trimmingTrailingSpaces())
                        line = rest
                        lineWidth -= point.width
                    } else {
                        lines.append(line.trimmingTrailingSpaces())
                        line = ""
                        lineWidth = 0
                    }
                    breakAt = nil
                    wrapped = true
                }
                // A space that caused the break is not carried to the next line.
                if cluster == " ", line.isEmpty, wrapped { continue }
                wrapped = false
                line.append(cluster)
                lineWidth += clusterWidth
                if cluster == " " { breakAt = (line.endIndex, lineWidth) }
            }
            lines.append(line.trimmingTrailingSpaces())
        }
        return lines
    }

    /// `text` cut to `width` columns, ending in `…` when it was cut.
    public func truncate(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        if widths.width(of: text) <= width { return text }
        var result = ""
        var used = 0
        for cluster in text {
            let clusterWidth = widths.width(of: cluster)
            if used + clusterWidth > width - 1 { break }
            result.append(cluster)
            used += clusterWidth
        }
        return result + "…"
    }

    /// `text` padded with spaces (or cut) to exactly `width` columns.
    public func pad(_ text: String, width: Int) -> String {
        let cut = truncate(text, width: width)
        let used = widths.width(of: cut)
        return used >= width ? cut : cut + String(repeating: " ", count: width - used)
    }
}

extension String {
    /// Without spaces and newlines at either end.
    func trimmingSpaces() -> String {
        var copy = Substring(self)
        while copy.first == " " || copy.first == "\n" { copy.removeFirst() }
        while copy.last == " " || copy.last == "\n" { copy.removeLast() }
        return String(copy)
    }

    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
