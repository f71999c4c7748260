import IMProtocol

/// Splits a one-shot message longer than the server's limit into parts on line
/// boundaries, each marked `(1/3)`.
///
/// Only one-shot messages split: a living incident message is kept under the limit by
/// ``IncidentRenderer`` instead, since a split message could not be edited as one.
public enum MessageSplitter {
    /// The parts of `text`, each at most `limit` characters with its marker; `[text]`
    /// when it fits. A line longer than a part is cut at its last space that fits (or
    /// anywhere, for a line without one).
    public static func split(_ text: String, limit: Int = Limits.messageTextLength.upperBound) -> [String] {
        guard text.count > limit else { return [text] }
        // The marker's width depends on the number of parts, which depends on the room the
        // marker leaves: widen until the count fits the width assumed.
        var digits = 1
        while true {
            let marker = "(\(String(repeating: "9", count: digits))/\(String(repeating: "9", count: digits))) ".count
            let chunks = pack(text, room: max(limit - marker, 1))
            if String(chunks.count).count <= digits {
                return chunks.enumerated().map { "(\($0.offset + 1)/\(chunks.count)) " + $0.element }
            }
            digits += 1
        }
    }

    /// Lines packed greedily into chunks of at most `room` characters.
    static func pack(_ text: String, room: Int) -> [String] {
        var chunks: [String] = []
        var current = ""
        func flush() {
            if !current.isEmpty { chunks.append(current) }
            current = ""
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(line)
            if !current.isEmpty, current.count + 1 + rest.count <= room {
                current += "\n" + rest
                continue
            }
            flush()
            while rest.count > room {
                let window = rest.prefix(room)
                let cut = window.lastIndex(of: " ").map { rest.index(after: $0) } ?? window.endIndex
                let piece = rest[..<cut]
                let cleaned = piece.last == " " ? piece.dropLast() : piece
                if !cleaned.isEmpty { chunks.append(String(cleaned)) }
                rest = rest[cut...]
            }
            current = String(rest)
        }
        flush()
        return chunks.isEmpty ? [""] : chunks
    }
}
