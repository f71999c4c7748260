import YAMLCoding

/// A bot or rule name: letters, digits, `_`, `-` and `.`, at most 64 characters, so
/// that it can sit inside message ids and metric labels as it is.
struct Name: Sendable, Hashable, Decodable {
    let value: String
    let mark: YAMLMark

    static let maximumLength = 64

    init(from decoder: any Decoder) throws {
        let text = try decoder.decodeValue(String.self)
        value = text
        mark = decoder.mark
        guard Self.isValid(text) else {
            throw decoder.botDecoding.failure(
                .invalidValue,
                "'\(text)' is not a valid name (use 1 to \(Self.maximumLength) letters, digits, '_', '-' or '.')",
                at: mark, path: decoder.codingPath)
        }
    }

    static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maximumLength else { return false }
        return text.utf8.allSatisfy { byte in
            ParsedCommand.isNameByte(byte) || byte == UInt8(ascii: ".")
        }
    }
}

/// An IANA time zone name, checked against the system's zone database.
struct TimeZoneName: Sendable, Hashable, Decodable {
    let identifier: String

    init(from decoder: any Decoder) throws {
        let text = try decoder.decodeValue(String.self)
        guard TimeZoneDatabase.zone(text) != nil else {
            let hint = Suggestion.hint(for: text, among: TimeZoneDatabase.identifiers)
            throw decoder.botDecoding.failure(
                .invalidValue, "unknown time zone '\(text)'\(hint) (write an IANA name such as Europe/Berlin)",
                at: decoder.mark, path: decoder.codingPath)
        }
        identifier = text
    }
}
