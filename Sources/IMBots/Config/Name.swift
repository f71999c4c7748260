import YAMLCoding

/// A bot or rule name: letters, digits, `_`, `-` and `.`, at most 64 characters, so
/// that it can sit inside message ids and metric labels as it is.
struct Name: Sendable, Hashable, Decodable {
    let value: String
    let mark: YAMLMark

    static let maximumLength = 64

    /// Stands in for a name that failed to decode (its problem is reported).
    static let unnamed = Name(value: "-", mark: .unknown)

    private init(value: String, mark: YAMLMark) {
        self.value = value
        self.mark = mark
    }

    init(from decoder: any Decoder) throws {
        let text = try decoder.decodeValue(String.self)
        value = text
        mark = decoder.mark
        if !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) {
            // A bot's name is the name of its state folder: '.' and '..' would be another one.
            throw decoder.botDecoding.failure(
                .invalidValue, "'\(text)' is not a valid name: it needs a letter, digit, '_' or '-' besides dots",
                at: mark, path: decoder.codingPath)
        }
        guard Self.isValid(text) else {
            throw decoder.botDecoding.failure(
                .invalidValue,
                "'\(text)' is not a valid name (use 1 to \(Self.maximumLength) letters, digits, '_', '-' or '.')",
                at: mark, path: decoder.codingPath)
        }
    }

    static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maximumLength,
              !text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) else { return false }
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
