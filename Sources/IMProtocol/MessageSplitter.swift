import Foundation

/// Cuts a text longer than one message into messages at sensible places, so nothing is
/// cut off and no word is broken where it can be helped: a paragraph break first, then a
/// line break, the end of a sentence, a space, and only in a run with none of those
/// between two characters. The break itself (the blank line, the newline or the space)
/// goes; nothing else is dropped.
///
/// The one splitter of the chat clients and the bots (which mark the parts, see
/// `MarkedParts`); the web client's `Web/app/split.js` does the same in the browser.
public enum MessageSplitter {
    /// The parts of `text`, each within `maxCharacters` grapheme clusters and
    /// `maxBytes` UTF-8 bytes (the server's limits by default); `[text]` when it fits.
    public static func split(
        _ text: String, maxCharacters: Int = Limits.messageTextLength.upperBound,
        maxBytes: Int = Limits.byteLimit(for: Limits.messageTextLength)
    ) -> [String] {
        var parts: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            // The longest prefix that fits both limits.
            var end = rest.startIndex
            var count = 0
            var bytes = 0
            while end < rest.endIndex, count < maxCharacters {
                let next = rest.index(after: end)
                let size = rest[end..<next].utf8.count
                if bytes + size > maxBytes { break }
                bytes += size
                count += 1
                end = next
            }
            if end == rest.endIndex {
                parts.append(String(rest))
                break
            }
            if end == rest.startIndex {
                // One character alone is over the byte limit (a letter with thousands of
                // combining marks): no message takes it whole, so it is cut between its
                // code points, as many as fit (at least one, so the cutting ends).
                let scalars = rest.unicodeScalars
                var cut = scalars.startIndex
                var size = 0
                while cut < scalars.endIndex {
                    let next = size + scalars[cut].utf8.count
                    if next > maxBytes, size > 0 { break }
                    size = next
                    cut = scalars.index(after: cut)
                }
                parts.append(String(scalars[..<cut]))
                rest = Substring(String(scalars[cut...]))
                continue
            }
            let window = rest[rest.startIndex..<end]
            let (cut, resume) = breakPoint(in: window, atLeast: max(1, count / 2))
            let part = String(window[..<cut])
            if !part.isEmpty { parts.append(part) }
            rest = rest[resume...]
        }
        return parts
    }

    /// Where to end the part in `window` and where the next one starts: the last break
    /// found in its second half (a part is never tiny), else the window's end.
    private static func breakPoint(in window: Substring, atLeast minimum: Int) -> (Substring.Index, Substring.Index) {
        let earliest = window.index(window.startIndex, offsetBy: minimum, limitedBy: window.endIndex) ?? window.endIndex
        let tail = window[earliest...]
        if let range = tail.range(of: "\n\n", options: .backwards) { return (range.lowerBound, range.upperBound) }
        if let index = tail.lastIndex(of: "\n") { return (index, window.index(after: index)) }
        for end in [". ", "! ", "? ", "。"] {
            if let range = tail.range(of: end, options: .backwards) {
                let keep = end.hasSuffix(" ") ? window.index(before: range.upperBound) : range.upperBound
                return (keep, range.upperBound)
            }
        }
        if let index = tail.lastIndex(of: " ") { return (index, window.index(after: index)) }
        return (window.endIndex, window.endIndex)
    }
}
