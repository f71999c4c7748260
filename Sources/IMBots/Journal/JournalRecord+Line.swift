import Foundation

extension JournalRecord {
    /// The record as one line of JSON, newline included: the same text `Codable` writes
    /// (keys sorted), written by hand for the records every reply makes (an event's
    /// messages, a message sent, a cursor), which `JSONEncoder` took about 10 µs each to
    /// write; the others go through the encoder.
    func line(encoder: JSONEncoder) throws -> Data {
        var text = ""
        switch change {
        case .cursor(let cursor):
            text = "{\"cursor\":"
            RenderedValue.writeString(cursor, to: &text)
        case .done(let id):
            text = "{\"done\":"
            RenderedValue.writeString(id, to: &text)
        case .handled(let position, let state, let messages)
            where state.isEmpty && messages.allSatisfy({ $0.incident == nil }):
            text = "{\"handled\":{"
            if !messages.isEmpty {
                text += "\"messages\":["
                for (index, message) in messages.enumerated() {
                    if index > 0 { text += "," }
                    Self.write(message, to: &text)
                }
                text += "],"
            }
            text += "\"position\":\(position)}"
        default:
            var data = try encoder.encode(self)
            data.append(0x0A)
            return data
        }
        text += ",\"seq\":\(sequence)}\n"
        return Data(text.utf8)
    }

    /// A message as `PendingMessage`'s `Codable` writes it, keys sorted (one of a living
    /// message, with its `incident`, goes through the encoder).
    private static func write(_ message: PendingMessage, to text: inout String) {
        text += "{\"action\":"
        RenderedValue.writeString(message.action, to: &text)
        text += ",\"client_msg_id\":"
        RenderedValue.writeString(message.clientMessageID, to: &text)
        text += ",\"position\":\(message.position)"
        if let replyTo = message.replyTo { text += ",\"reply_to\":\"\(replyTo.rawValue)\"" }
        text += ",\"rule\":"
        RenderedValue.writeString(message.rule, to: &text)
        if !message.sheddable { text += ",\"sheddable\":false" }
        text += ",\"text\":"
        RenderedValue.writeString(message.text, to: &text)
        text += ",\"to\":"
        RenderedValue.writeString(message.to, to: &text)
        text += "}"
    }

    /// One line's record; nil when the line is damaged. A well-formed record of a kind this
    /// version does not know stops the start: dropping it would lose state.
    static func read(_ line: Data, source path: String) throws(RunnerError) -> JournalRecord? {
        do {
            return try JSONDecoder().decode(JournalRecord.self, from: line)
        } catch {
            guard (try? JSONSerialization.jsonObject(with: line)) is [String: Any] else { return nil }
            throw RunnerError("\(path) holds a record this version of switchboard cannot read "
                              + "(written by a newer one?): \(String(decoding: line.prefix(120), as: UTF8.self))")
        }
    }
}
