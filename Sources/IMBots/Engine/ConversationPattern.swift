import IMProtocol

/// Which conversations a `listen` entry or an `in` matcher accepts.
///
/// Written as `direct` (every one-to-one conversation), `user:NAME` or `direct:NAME`
/// (the one with that user), `group:NAME`, `room:NAME`, `group:*`, `room:*`, or a
/// conversation id. Names are case-insensitive, as the server treats them.
public enum ConversationPattern: Sendable, Hashable, CustomStringConvertible {
    /// Every one-to-one conversation.
    case direct
    /// The one-to-one conversation with this user.
    case user(String)
    /// The group with this name.
    case group(String)
    /// Every group.
    case anyGroup
    /// The room with this name.
    case room(String)
    /// Every room.
    case anyRoom
    /// The conversation with this id.
    case id(ConversationID)

    /// Parses the written form; nil when it is none of them.
    public init?(_ text: String) {
        let lowered = text.trimmedWhitespace.lowercased()
        switch lowered {
        case "direct": self = .direct
        case "group:*": self = .anyGroup
        case "room:*": self = .anyRoom
        default:
            guard let address = ConversationAddress(lowered) else { return nil }
            switch address {
            case .id(let id): self = .id(id)
            case .user(let name): self = .user(name)
            case .group(let name): self = .group(name)
            case .room(let name): self = .room(name)
            }
        }
    }

    /// Whether the conversation is one this pattern names.
    public func matches(_ conversation: ConversationRef) -> Bool {
        switch self {
        case .direct: conversation.kind == .direct
        case .anyGroup: conversation.kind == .group
        case .anyRoom: conversation.kind == .room
        case .id(let id): conversation.id == id
        case .user(let name):
            conversation.kind == .direct && conversation.address == .user(name)
        case .group(let name):
            conversation.kind == .group && conversation.address == .group(name)
        case .room(let name):
            conversation.kind == .room && conversation.address == .room(name)
        }
    }

    /// The written form: `direct`, `user:alice`, `group:*`, ...
    public var description: String {
        switch self {
        case .direct: "direct"
        case .anyGroup: "group:*"
        case .anyRoom: "room:*"
        case .id(let id): id.description
        case .user(let name): "user:\(name)"
        case .group(let name): "group:\(name)"
        case .room(let name): "room:\(name)"
        }
    }
}
