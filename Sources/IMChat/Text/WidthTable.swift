/// How many terminal columns each grapheme cluster takes: the one table every layout,
/// wrap and redraw of the chat client measures with.
///
/// Defaults follow what current terminals draw: East Asian wide and fullwidth characters
/// (Unicode's `EastAsianWidth.txt`, in `WideRanges.swift`) and emoji shown as emoji
/// (Emoji_Presentation, a VS16 `U+FE0F`, a flag pair, a ZWJ sequence) take two columns;
/// a VS15 `U+FE0E` asks for text presentation (one column); combining marks add nothing
/// to their base. Terminals disagree at the edges (tmux 3.3a measures a ZWJ sequence
/// as the sum of its parts, for example), so `overrides` can set the width of one
/// cluster or of every cluster whose first code point is in a range.
public struct WidthTable: Sendable {
    /// A correction of the defaults for one terminal.
    public enum Override: Sendable, Hashable {
        /// Clusters whose first code point lies in the range.
        case scalars(ClosedRange<UInt32>, width: Int)
        /// One exact cluster.
        case cluster(String, width: Int)
    }

    /// The corrections, later ones winning.
    public let overrides: [Override]
    private let clusterOverrides: [String: Int]
    private let rangeOverrides: [(ClosedRange<UInt32>, Int)]

    /// The default table, corrected by `overrides`.
    public init(overrides: [Override] = []) {
        self.overrides = overrides
        var clusters: [String: Int] = [:]
        var ranges: [(ClosedRange<UInt32>, Int)] = []
        for override in overrides {
            switch override {
            case .cluster(let text, let width): clusters[text] = width
            case .scalars(let range, let width): ranges.insert((range, width), at: 0)
            }
        }
        clusterOverrides = clusters
        rangeOverrides = ranges
    }

    /// The default table.
    public static let standard = WidthTable()

    /// Columns taken by one cluster of sanitized text (1 or 2).
    public func width(of cluster: Character) -> Int {
        if cluster.isASCII { return 1 }
        if !clusterOverrides.isEmpty, let width = clusterOverrides[String(cluster)] { return width }
        let scalars = cluster.unicodeScalars
        guard let first = scalars.first else { return 0 }
        for (range, width) in rangeOverrides where range.contains(first.value) { return width }
        var sawEmoji = false
        var regionalIndicators = 0
        for scalar in scalars {
            switch scalar.value {
            case 0xFE0E: return 1
            case 0xFE0F where first.properties.isEmoji: return 2
            case 0x200D where sawEmoji: return 2
            case 0x1F1E6...0x1F1FF: regionalIndicators += 1
            default: break
            }
            if scalar.properties.isEmoji, scalar.value > 0xFF { sawEmoji = true }
        }
        if regionalIndicators >= 2 { return 2 }
        if first.properties.isEmojiPresentation || Self.isWide(first.value) { return 2 }
        return 1
    }

    /// Columns taken by sanitized `text` on one line.
    public func width(of text: some StringProtocol) -> Int {
        var total = 0
        for cluster in text { total += width(of: cluster) }
        return total
    }

    static func isWide(_ value: UInt32) -> Bool {
        // Below U+1100 nothing is wide; most text never reaches the search.
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}

extension WidthTable {
    /// Parses overrides such as `1F1E6-1F1FF=1,U+2605=2,👩‍💻=2`: comma-separated items,
    /// each a code point or range in hex (with or without `U+`) or a literal cluster,
    /// then `=` and a width of 1 or 2.
    public static func parseOverrides(_ text: String) throws(WidthOverrideError) -> [Override] {
        var result: [Override] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            let entry = item.trimmingCharacters(in: [" "])
            guard let equals = entry.lastIndex(of: "="), let width = Int(entry[entry.index(after: equals)...]),
                (1...2).contains(width)
            else { throw WidthOverrideError(item: entry, reason: "expected KEY=1 or KEY=2") }
            let key = String(entry[..<equals])
            if let range = Self.hexRange(key) {
                result.append(.scalars(range, width: width))
            } else if key.count == 1, !key.unicodeScalars.allSatisfy({ $0.isASCII }) {
                result.append(.cluster(key, width: width))
            } else {
                throw WidthOverrideError(
                    item: entry, reason: "the key must be a hex code point (2605), a range (1F1E6-1F1FF) or one character")
            }
        }
        return result
    }

    private static func hexRange(_ key: String) -> ClosedRange<UInt32>? {
        let parts = key.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let values = parts.compactMap { part -> UInt32? in
            var digits = part.uppercased()
            if digits.hasPrefix("U+") { digits.removeFirst(2) }
            guard !digits.isEmpty, digits.count <= 6 else { return nil }
            return UInt32(digits, radix: 16)
        }
        guard values.count == parts.count, let low = values.first, let high = values.last, low <= high,
            high <= 0x10FFFF
        else { return nil }
        return low...high
    }
}

/// An override list that cannot be read.
public struct WidthOverrideError: Error, Sendable, CustomStringConvertible {
    /// The item at fault.
    public var item: String
    /// What is wrong with it.
    public var reason: String
    /// `width override 'x': …`.
    public var description: String { "width override '\(item)': \(reason)" }
}
