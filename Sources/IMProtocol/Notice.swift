/// A reply only one member of a conversation sees: a bot answers someone without telling
/// everyone. It is in nobody's history, unread count or last message; its recipient gets it
/// once, as a `notice` event of their feed, and it goes when the feed's events are pruned.
public struct Notice: Codable, Sendable, Hashable, Identifiable {
    public var id: NoticeID
    public var conversationID: ConversationID
    /// Username of the sender (a bot, or a server administrator).
    public var sender: String
    public var senderID: UserID
    /// The one member who sees it.
    public var recipientID: UserID
    public var text: String
    /// Chosen by the sender: the same id again answers this notice instead of a second one.
    public var clientID: String
    /// The message it answers, when it answers one.
    public var replyTo: MessageID?
    public var createdAt: Timestamp

    public init(
        id: NoticeID, conversationID: ConversationID, sender: String, senderID: UserID, recipientID: UserID,
        text: String, clientID: String, replyTo: MessageID? = nil, createdAt: Timestamp
    ) {
        self.id = id
        self.conversationID = conversationID
        self.sender = sender
        self.senderID = senderID
        self.recipientID = recipientID
        self.text = text
        self.clientID = clientID
        self.replyTo = replyTo
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, sender, text
        case conversationID = "conversation_id"
        case senderID = "sender_id"
        case clientID = "client_id"
        case replyTo = "reply_to"
        case createdAt = "created_at"
        case recipientID = "to"
    }
}

/// `POST /v1/conversations/<c>/notices`: a notice to one member (bots and server
/// administrators only).
public struct SendNoticeRequest: Codable, Sendable, Hashable {
    /// The member who sees it.
    public var to: UserID
    public var text: String
    /// Chosen by the sender and reused on retry: the same id again answers the first
    /// notice instead of sending a second one.
    public var clientID: String
    public var replyTo: MessageID?

    public init(to: UserID, text: String, clientID: String, replyTo: MessageID? = nil) {
        self.to = to
        self.text = text
        self.clientID = clientID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case to, text
        case clientID = "client_id"
        case replyTo = "reply_to"
    }

    /// The rules of a message's text and client id.
    public func validate() throws {
        try Validate.text(text, field: "text", length: Limits.messageTextLength, multiline: true)
        try Validate.text(clientID, field: "client_id", length: Limits.clientMessageIDLength)
    }
}

/// The answer to `POST /v1/conversations/<c>/notices`.
public struct NoticeReceipt: Codable, Sendable, Hashable {
    public var notice: Notice
    public init(notice: Notice) { self.notice = notice }
}
