/// The kind of a conversation.
public enum ConversationKind: String, Sendable, Codable, CaseIterable {
    /// One-to-one between two users.
    case direct
    /// A named group with durable membership.
    case group
    /// A named room: messages reach only those present.
    case room
}

/// How a request names a conversation: by opaque id, or by `user:<name>`,
/// `group:<name>` or `room:<name>`.
public enum ConversationAddress: Hashable, Sendable, CustomStringConvertible, Codable {
    case id(ConversationID)
    /// The one-to-one conversation with this user (from the caller's point of view).
    case user(String)
    case group(String)
    case room(String)

    /// Parses `123`, `user:bob`, `group:ops` or `room:lobby`; nil for anything else.
    public init?(_ text: String) {
        if let colon = text.firstIndex(of: ":") {
            let kind = text[..<colon]
            let name = String(text[text.index(after: colon)...])
            guard !name.isEmpty else { return nil }
            switch kind {
            case "user", "direct": self = .user(name)
            case "group": self = .group(name)
            case "room": self = .room(name)
            default: return nil
            }
        } else if let id = ConversationID(text) {
            self = .id(id)
        } else {
            return nil
        }
    }

    /// An address for a named conversation of a kind.
    public init(kind: ConversationKind, name: String) {
        switch kind {
        case .direct: self = .user(name)
        case .group: self = .group(name)
        case .room: self = .room(name)
        }
    }

    public var description: String {
        switch self {
        case .id(let id): id.description
        case .user(let name): "user:\(name)"
        case .group(let name): "group:\(name)"
        case .room(let name): "room:\(name)"
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let address = ConversationAddress(text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "not a conversation address: \(text) (use an id, user:NAME, group:NAME or room:NAME)")
        }
        self = address
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
