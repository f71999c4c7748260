/// A numeric identifier that travels as a decimal string, so clients treat it as opaque
/// and JavaScript-style number limits never truncate it.
public protocol StringIdentifier: Hashable, Sendable, Codable, CustomStringConvertible,
    LosslessStringConvertible, Comparable
{
    var rawValue: Int64 { get }
    init(rawValue: Int64)
}

extension StringIdentifier {
    public init?(_ description: String) {
        guard let value = Int64(description), value > 0 else { return nil }
        self.init(rawValue: value)
    }

    public var description: String { String(rawValue) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int64.self), value > 0 {
            self.init(rawValue: value)
            return
        }
        let text = try container.decode(String.self)
        guard let value = Int64(text), value > 0 else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not an identifier: \(text)")
        }
        self.init(rawValue: value)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Identifies an account.
public struct UserID: StringIdentifier {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// Identifies a conversation (one-to-one, group or room).
public struct ConversationID: StringIdentifier {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// Identifies a message across all conversations.
public struct MessageID: StringIdentifier {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// Identifies a notice (a reply only its recipient sees).
public struct NoticeID: StringIdentifier {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}
