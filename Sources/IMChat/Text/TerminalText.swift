/// The one sanitizer between text from elsewhere (messages, names, descriptions, error
/// texts of a server) and a terminal: the chat client's cell grid and the command line's
/// line writer both pass everything through it, so no caller can forget it.
///
/// Nothing that steers the terminal gets through: C0 and C1 controls (an escape sequence
/// must not move the cursor or retitle the window; a carriage return must not send the
/// cursor back to draw over the start of a line "from" someone else) become `�`; format
/// characters such as bidi overrides and isolates, which would reorder what follows, are
/// dropped (ZWJ, ZWNJ and the tags of subdivision flags, which belong to their cluster,
/// stay); a combining mark with no base gets the dotted circle `◌` to sit on. Newlines
/// (and CRLF) stay only when asked for, else they become a space; so do tabs.
public enum TerminalText {
    /// What may pass besides printable text.
    public struct Keep: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Line feeds (a CRLF becomes one; a lone CR never passes).
        public static let newlines = Keep(rawValue: 1)
        /// Horizontal tabs.
        public static let tabs = Keep(rawValue: 2)
    }

    /// `text` safe to show.
    public static func sanitize(_ text: some StringProtocol, keeping keep: Keep = []) -> String {
        if isPrintableASCII(text.utf8) { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for cluster in text {
            if let byte = cluster.asciiValue, byte >= 0x20, byte != 0x7F {
                result.append(cluster)
                continue
            }
            if cluster == "\n" || cluster == "\r\n" {
                result.append(keep.contains(.newlines) ? "\n" : " ")
                continue
            }
            if cluster == "\t" {
                result.append(keep.contains(.tabs) ? "\t" : " ")
                continue
            }
            var kept = String.UnicodeScalarView()
            for scalar in cluster.unicodeScalars {
                switch scalar.properties.generalCategory {
                case .control:
                    kept.append("\u{FFFD}")
                case .format where !keptFormat(scalar.value):
                    continue
                case .lineSeparator, .paragraphSeparator:
                    kept.append(keep.contains(.newlines) ? "\n" : " ")
                default:
                    kept.append(scalar)
                }
            }
            guard let first = kept.first else { continue }
            if isMark(first) { kept.insert("\u{25CC}", at: kept.startIndex) }
            result.unicodeScalars.append(contentsOf: kept)
        }
        return result
    }

    /// True when every byte is printable ASCII: nothing to do (the common case, checked
    /// without building a string).
    static func isPrintableASCII(_ bytes: some Sequence<UInt8>) -> Bool {
        bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// ZWJ, ZWNJ and the tag characters of subdivision flags belong to their cluster.
    private static func keptFormat(_ value: UInt32) -> Bool {
        value == 0x200D || value == 0x200C || (0xE0020...0xE007F).contains(value)
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: scalar.value == 0x200D
        }
    }
}
