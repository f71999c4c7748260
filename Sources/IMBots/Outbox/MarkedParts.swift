import IMProtocol

/// A one-shot bot message longer than the server takes, as its parts, each marked
/// `(1/3)`: cut where ``MessageSplitter`` cuts (a paragraph break, a line break, the end
/// of a sentence, a space), each part with its marker within the server's limits of
/// characters and of bytes.
///
/// Only one-shot messages split: a living incident message is kept under the limit by
/// ``IncidentRenderer`` instead, since a split message could not be edited as one.
public enum MarkedParts {
    /// The parts of `text`, each at most `limit` characters and `maxBytes` bytes of UTF-8
    /// with its marker; `[text]` when it fits.
    public static func split(_ text: String, limit: Int = Limits.messageTextLength.upperBound,
                             maxBytes: Int = Limits.byteLimit(for: Limits.messageTextLength)) -> [String] {
        guard text.count > limit || text.utf8.count > maxBytes else { return [text] }
        // The marker's width depends on the number of parts, which depends on the room the
        // marker leaves: widen until the count fits the width assumed.
        var digits = 1
        while true {
            let marker = "(\(String(repeating: "9", count: digits))/\(String(repeating: "9", count: digits))) ".count
            let chunks = MessageSplitter.split(text, maxCharacters: max(limit - marker, 1),
                                               maxBytes: max(maxBytes - marker, 8))
            if String(chunks.count).count <= digits {
                return chunks.enumerated().map { "(\($0.offset + 1)/\(chunks.count)) " + $0.element }
            }
            digits += 1
        }
    }
}
