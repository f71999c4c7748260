/// What a message carries. The seed's service used numeric types (30 chat, 32 system).
public enum MessageType: String, Codable, Sendable, Hashable {
    /// Text written by a person or a bot.
    case chat
    /// A notice from the server ("alice entered the room").
    case system
}

/// One message in a conversation.
public struct Message: Codable, Sendable, Hashable, Identifiable {
    public var id: MessageID
    public var conversationID: ConversationID
    /// Position in the conversation: 1, 2, 3, … Used for paging and read markers.
    public var seq: Int64
    public var type: MessageType
    /// Username of the sender; for system notices, the user the notice is about.
    public var sender: String
    public var senderID: UserID
    public var text: String
    public var clientMessageID: String?
    public var replyTo: MessageID?
    public var createdAt: Timestamp
    /// Set when the message was deleted; its text is then empty.
    public var deletedAt: Timestamp?
    /// Set when its sender last changed the text.
    public var editedAt: Timestamp?

    public init(
        id: MessageID, conversationID: ConversationID, seq: Int64, type: MessageType = .chat,
        sender: String, senderID: UserID, text: String, clientMessageID: String? = nil,
        replyTo: MessageID? = nil, createdAt: Timestamp, deletedAt: Timestamp? = nil, editedAt: Timestamp? = nil
    ) {
        self.id = id
        self.conversationID = conversationID
        self.seq = seq
        self.type = type
        self.sender = sender
        self.senderID = senderID
        self.text = text
        self.clientMessageID = clientMessageID
        self.replyTo = replyTo
        self.createdAt = createdAt
        self.deletedAt = deletedAt
        self.editedAt = editedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, seq, type, sender, text
        case conversationID = "conversation_id"
        case senderID = "sender_id"
        case clientMessageID = "client_msg_id"
        case replyTo = "reply_to"
        case createdAt = "created_at"
        case deletedAt = "deleted_at"
        case editedAt = "edited_at"
    }
}

/// `POST /v1/conversations/<c>/messages`.
public struct SendMessageRequest: Codable, Sendable, Hashable {
    public var text: String
    /// Chosen by the client, reused on retry: the same id again returns the first
    /// message instead of sending a second one.
    public var clientMessageID: String?
    public var replyTo: MessageID?

    public init(text: String, clientMessageID: String? = nil, replyTo: MessageID? = nil) {
        self.text = text
        self.clientMessageID = clientMessageID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case text
        case clientMessageID = "client_msg_id"
        case replyTo = "reply_to"
    }

    public func validate() throws {
        try Validate.text(text, field: "text", length: Limits.messageTextLength, multiline: true)
        if let clientMessageID {
            try Validate.text(
                clientMessageID, field: "client_msg_id", length: Limits.clientMessageIDLength)
        }
    }
}

/// `PATCH /v1/conversations/<c>/messages/<id>`: the sender's new text.
public struct EditMessageRequest: Codable, Sendable, Hashable {
    public var text: String

    public init(text: String) { self.text = text }

    /// The rules of a sent message's text.
    public func validate() throws {
        try Validate.text(text, field: "text", length: Limits.messageTextLength, multiline: true)
    }
}

/// `GET /v1/conversations/<c>/messages`: newest first.
public struct MessagePage: Codable, Sendable, Hashable {
    public var messages: [Message]
    /// Pass as `before` to get the next older page; nil when there is none.
    public var nextBefore: Int64?

    public init(messages: [Message], nextBefore: Int64?) {
        self.messages = messages
        self.nextBefore = nextBefore
    }

    enum CodingKeys: String, CodingKey {
        case messages
        case nextBefore = "next_before"
    }
}

/// `POST /v1/conversations/<c>/read`: everything up to `seq` has been read.
public struct ReadMarker: Codable, Sendable, Hashable {
    public var seq: Int64
    public init(seq: Int64) { self.seq = seq }
}
