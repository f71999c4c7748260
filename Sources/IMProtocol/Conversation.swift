/// A conversation as seen by one user: the sessions screen's row.
public struct Conversation: Codable, Sendable, Hashable, Identifiable {
    public var id: ConversationID
    public var kind: ConversationKind
    /// How this user addresses it: `user:<other>`, `group:<name>` or `room:<name>`.
    public var address: ConversationAddress
    /// The other user's nickname, or the group's or room's title.
    public var displayName: String
    public var avatarURL: String
    public var lastMessage: Message?
    /// Messages from others after this user's read marker.
    public var unread: Int
    /// This user's read marker (a message `seq`).
    public var lastReadSeq: Int64
    public var updatedAt: Timestamp

    public init(
        id: ConversationID, kind: ConversationKind, address: ConversationAddress,
        displayName: String, avatarURL: String, lastMessage: Message?, unread: Int,
        lastReadSeq: Int64, updatedAt: Timestamp
    ) {
        self.id = id
        self.kind = kind
        self.address = address
        self.displayName = displayName
        self.avatarURL = avatarURL
        self.lastMessage = lastMessage
        self.unread = unread
        self.lastReadSeq = lastReadSeq
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, address, unread
        case displayName = "display_name"
        case avatarURL = "avatar_url"
        case lastMessage = "last_message"
        case lastReadSeq = "last_read_seq"
        case updatedAt = "updated_at"
    }
}

/// `GET /v1/conversations`: unread first, then most recent.
public struct ConversationList: Codable, Sendable, Hashable {
    public var conversations: [Conversation]
    public init(conversations: [Conversation]) { self.conversations = conversations }
}

/// A short reference to a conversation inside an event.
public struct ConversationRef: Codable, Sendable, Hashable {
    public var id: ConversationID
    public var kind: ConversationKind
    /// The address from the receiving user's point of view (for a one-to-one
    /// conversation: `user:<the other user>`).
    public var address: ConversationAddress

    public init(id: ConversationID, kind: ConversationKind, address: ConversationAddress) {
        self.id = id
        self.kind = kind
        self.address = address
    }
}
