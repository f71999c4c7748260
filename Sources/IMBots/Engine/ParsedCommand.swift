/// A chat command at the start of a text: `/ticket printer on fire`,
/// `/ticket@helpdesk printer on fire`.
struct ParsedCommand: Sendable, Hashable {
    /// The command name, lowered, without the slash.
    let name: String
    /// The bot named after `@`, lowered; nil when the command names none.
    let target: String?
    /// Everything after the command, trimmed.
    let args: String

    /// The arguments split at whitespace.
    var argv: [String] {
        args.split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    /// Parses a command; nil when the text (after leading blanks) does not start with
    /// `/name`, optionally `@bot`, followed by whitespace or the end.
    static func parse(_ text: String) -> ParsedCommand? {
        let bytes = text.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex, isBlank(bytes[index]) { bytes.formIndex(after: &index) }
        guard index != bytes.endIndex, bytes[index] == UInt8(ascii: "/") else { return nil }
        bytes.formIndex(after: &index)
        let nameStart = index
        while index != bytes.endIndex, isNameByte(bytes[index]) { bytes.formIndex(after: &index) }
        guard index != nameStart else { return nil }
        let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
        var target: String?
        if index != bytes.endIndex, bytes[index] == UInt8(ascii: "@") {
            bytes.formIndex(after: &index)
            let targetStart = index
            while index != bytes.endIndex, isNameByte(bytes[index]) || bytes[index] == UInt8(ascii: ".") {
                bytes.formIndex(after: &index)
            }
            guard index != targetStart else { return nil }
            target = String(decoding: bytes[targetStart..<index], as: UTF8.self).lowercased()
        }
        guard index == bytes.endIndex || isBlank(bytes[index]) else { return nil }
        let rest = String(decoding: bytes[index...], as: UTF8.self).trimmedWhitespace
        return ParsedCommand(name: name, target: target, args: rest)
    }

    /// Letters, digits, `_` and `-`: what command names are made of.
    static func isNameByte(_ byte: UInt8) -> Bool {
        ByteText.isASCIIAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
    }
}
