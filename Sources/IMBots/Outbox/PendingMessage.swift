import IMProtocol

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
    /// (which their sender cannot repeat) never are.
    var sheddable: Bool

    enum CodingKeys: String, CodingKey {
        case to, text, rule, action, position, sheddable
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
        self.position = position
        self.sheddable = sheddable
    }

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
    }
}
