import IMProtocol

/// A message an action wants sent.
public struct OutgoingMessage: Sendable, Hashable {
    /// Where it goes.
    public var to: ConversationAddress
    /// The rendered text.
    public var text: String
    /// Derived from the bot, the event's position, the rule and the action's index, so a
    /// repeated delivery of the same event sends the same id and the server drops the
    /// duplicate (see `IdempotencyKey`).
    public var clientMessageID: String
    /// The message this one answers (`reply: {quote: true}`).
    public var replyTo: MessageID?
    /// The rule that sends it.
    public var rule: String
    /// The action that sends it: `reply`, `notice`, `send` or `forward`.
    public var action: ActionKind
    /// For a notice, the one member who sees it; nil for a message everyone sees.
    public var notice: NoticeRecipient?

    /// Creates a message.
    public init(to: ConversationAddress, text: String, clientMessageID: String, replyTo: MessageID? = nil,
                rule: String, action: ActionKind) {
        self.to = to
        self.text = text
        self.clientMessageID = clientMessageID
        self.replyTo = replyTo
        self.rule = rule
        self.action = action
    }
}

/// The member a notice is for, in the conversation it is given in.
public struct NoticeRecipient: Codable, Sendable, Hashable {
    public var conversation: ConversationID
    public var user: UserID
}

/// A message in a bot's outbox, as its journal keeps it.
struct PendingMessage: Codable, Sendable, Equatable {
    var to: String
    var text: String
    var clientMessageID: String
    var replyTo: MessageID?
    var rule: String
    var action: String
    /// The feed position of the event that caused it (0 when no feed event did).
    var position: Int64
    /// Whether a full queue may drop it for a newer message: replies may be shed, alerts
    /// (which their sender cannot repeat) never are, and go ahead of replies.
    var sheddable: Bool
    /// The incident whose living message this posts, edits or replies to; the message's
    /// id is looked up when it is sent (the post may still be queued when it is made).
    var incident: IncidentRef?
    /// For a notice, the one member who sees it (sent as a notice, with the same client id).
    var notice: NoticeRecipient?

    enum CodingKeys: String, CodingKey {
        case to, text, rule, action, position, sheddable, incident, notice
        case clientMessageID = "client_msg_id"
        case replyTo = "reply_to"
    }

    init(_ message: OutgoingMessage, position: Int64, sheddable: Bool = true) {
        to = message.to.description
        text = message.text
        clientMessageID = message.clientMessageID
        replyTo = message.replyTo
        rule = message.rule
        action = message.action.rawValue
        notice = message.notice
        self.position = position
        self.sheddable = sheddable
    }

    /// A message of an incident's living message: never shed.
    init(incident: IncidentRef, to: ConversationAddress, text: String, clientMessageID: String, rule: String) {
        self.to = to.description
        self.text = text
        self.clientMessageID = clientMessageID
        self.rule = rule
        action = ActionKind.incident.rawValue
        position = 0
        sheddable = false
        self.incident = incident
    }

    /// `message` as it goes into the outbox: one message, or, when it is longer than the
    /// server takes, its parts marked `(1/3)` (``MarkedParts``), each with a
    /// client id of its own (derived from the message's, so a repeat is still dropped).
    static func parts(of message: OutgoingMessage, position: Int64, sheddable: Bool = true) -> [PendingMessage] {
        let parts = MarkedParts.split(message.text)
        guard parts.count > 1 else { return [PendingMessage(message, position: position, sheddable: sheddable)] }
        return parts.enumerated().map { index, text in
            var part = PendingMessage(message, position: position, sheddable: sheddable)
            part.text = text
            part.clientMessageID = IdempotencyKey.derived(from: message.clientMessageID, "p\(index + 1)")
            return part
        }
    }

    /// Whether it is an alert: never shed, and sent before the replies queued with it.
    var isAlert: Bool { !sheddable }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        to = try container.decode(String.self, forKey: .to)
        text = try container.decode(String.self, forKey: .text)
        clientMessageID = try container.decode(String.self, forKey: .clientMessageID)
        replyTo = try container.decodeIfPresent(MessageID.self, forKey: .replyTo)
        rule = try container.decode(String.self, forKey: .rule)
        action = try container.decode(String.self, forKey: .action)
        position = try container.decodeIfPresent(Int64.self, forKey: .position) ?? 0
        sheddable = try container.decodeIfPresent(Bool.self, forKey: .sheddable) ?? true
        incident = try container.decodeIfPresent(IncidentRef.self, forKey: .incident)
        notice = try container.decodeIfPresent(NoticeRecipient.self, forKey: .notice)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(to, forKey: .to)
        try container.encode(text, forKey: .text)
        try container.encode(clientMessageID, forKey: .clientMessageID)
        try container.encodeIfPresent(replyTo, forKey: .replyTo)
        try container.encode(rule, forKey: .rule)
        try container.encode(action, forKey: .action)
        try container.encode(position, forKey: .position)
        if !sheddable { try container.encode(false, forKey: .sheddable) }
        try container.encodeIfPresent(incident, forKey: .incident)
        try container.encodeIfPresent(notice, forKey: .notice)
    }
}
