/// A Matrix user id, `@localpart:server`.
public struct MatrixUserID: Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Checks the shape `@localpart:server`; nil otherwise.
    public init?(_ text: String) {
        guard MatrixIdentifier.hasShape(text, sigil: "@", serverRequired: true) else { return nil }
        rawValue = text
    }

    /// The part before the server: `alice` of `@alice:example.org`.
    public var localpart: String { String(rawValue.dropFirst().prefix { $0 != ":" }) }
    /// The server part: `example.org` of `@alice:example.org`.
    public var server: String { String(rawValue.drop { $0 != ":" }.dropFirst()) }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = MatrixUserID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a user id: \(text)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A room as a bot file names it: by id (`!opaque:server`, or `!opaque` from room
/// version 12 on, whose ids name no server) or by alias (`#name:server`).
public enum MatrixRoomAddress: Sendable, Hashable, CustomStringConvertible {
    case id(String)
    case alias(String)

    /// Parses `!id:server`, `!id` or `#alias:server`; nil for anything else.
    public init?(_ text: String) {
        if MatrixIdentifier.hasShape(text, sigil: "!", serverRequired: false) {
            self = .id(text)
        } else if MatrixIdentifier.hasShape(text, sigil: "#", serverRequired: true) {
            self = .alias(text)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .id(let id): id
        case .alias(let alias): alias
        }
    }
}

/// The common shape of Matrix identifiers.
public enum MatrixIdentifier {
    /// The longest identifier the specification allows, in bytes.
    public static let maxLength = 255

    /// True for `sigil` + a non-empty local part + (`:` + a server name, when required or
    /// present), no blanks or control characters, at most 255 bytes.
    public static func hasShape(_ text: String, sigil: Character, serverRequired: Bool) -> Bool {
        guard text.first == sigil, text.utf8.count <= maxLength,
              !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return false }
        let body = text.dropFirst()
        guard let colon = body.firstIndex(of: ":") else { return !serverRequired && !body.isEmpty }
        return colon != body.startIndex && body.index(after: colon) != body.endIndex
    }
}

/// An event's id, `$opaque`, as the homeserver gave it.
public typealias MatrixEventID = String
