import IMProtocol

/// Which conversations a `listen` entry or an `in` matcher accepts.
///
/// Written as `direct` (every one-to-one conversation), `user:NAME` or `direct:NAME`
/// (the one with that user), `group:NAME`, `room:NAME`, `group:*`, `room:*`, or a
/// conversation id; on Matrix also a room as `!id:server` or `#alias:server` and a user as
/// `@name:server` (``ConversationAddress/init(written:)``). Names match case-insensitively,
/// as the server treats them.
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
        if let keyword = Self(keyword: text) {
            self = keyword
        } else if let address = ConversationAddress(written: text) {
            self.init(address)
        } else {
            return nil
        }
    }

    /// `direct`, `group:*` or `room:*`; nil for anything else.
    init?(keyword text: String) {
        switch text.trimmedWhitespace.lowercased() {
        case "direct": self = .direct
        case "group:*": self = .anyGroup
        case "room:*": self = .anyRoom
        default: return nil
        }
    }

    /// The pattern of one conversation.
    public init(_ address: ConversationAddress) {
        switch address {
        case .id(let id): self = .id(id)
        case .user(let name): self = .user(name.lowercased())
        case .group(let name): self = .group(name.lowercased())
        case .room(let name): self = .room(name.lowercased())
        }
    }

    /// Whether the conversation is one this pattern names.
    public func matches(_ conversation: ConversationRef) -> Bool {
        switch (self, conversation.address) {
        case (.direct, _): conversation.kind == .direct
        case (.anyGroup, _): conversation.kind == .group
        case (.anyRoom, _): conversation.kind == .room
        case (.id(let id), _): conversation.id == id
        case (.user(let name), .user(let other)):
            conversation.kind == .direct && Self.same(name, other)
        case (.group(let name), .group(let other)):
            conversation.kind == .group && Self.same(name, other)
        case (.room(let name), .room(let other)):
            conversation.kind == .room && Self.same(name, other)
        case (.user, _), (.group, _), (.room, _): false
        }
    }

    /// `name` (lowercased) and a conversation's name, as the server compares names. A
    /// Matrix room or user keeps its case in addresses, so the other side is lowercased:
    /// byte by byte when it is ASCII, as nearly every name is, so that matching an event
    /// against the patterns that do not name its conversation makes no new string.
    private static func same(_ name: String, _ other: String) -> Bool {
        if name == other { return true }
        let bytes = other.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return name == other.lowercased() }
        guard name.utf8.count == bytes.count else { return false }
        return zip(name.utf8, bytes).allSatisfy { mine, theirs in
            mine == (theirs >= UInt8(ascii: "A") && theirs <= UInt8(ascii: "Z") ? theirs | 0x20 : theirs)
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
