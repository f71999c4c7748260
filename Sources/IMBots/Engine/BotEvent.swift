import IMProtocol

/// One event as a bot's rules see it: the feed event plus who caused it.
///
/// The runner builds it from an `Event` of the bot's feed and the profile of the user
/// who caused the event (the message's sender, or the member, or whoever acted).
public struct BotEvent: Sendable {
    /// The event from the feed.
    public var event: Event
    /// The profile of whoever caused the event; nil when the runner does not have it.
    public var sender: User?
    /// The sender's role in the event's group, when the runner knows it.
    public var senderRole: MemberRole?
    /// A webhook delivery's payload; nil for feed events.
    public var payload: WebhookPayload?
    /// The listener path a webhook delivery came in on.
    public var webhookPath: String?
    /// What message ids and idempotency keys of what no feed event caused derive from.
    private var scope: String?

    /// Wraps a feed event.
    public init(event: Event, sender: User? = nil, senderRole: MemberRole? = nil) {
        self.event = event
        self.sender = sender
        self.senderRole = senderRole
    }

    /// A webhook delivery as webhook rules see it: no conversation and no sender.
    /// - Parameters:
    ///   - number: its number in the bot's inbox (`event.position` in templates).
    ///   - scope: what its messages' client ids derive from (`w12` for delivery 12), so
    ///     processing it again after a crash sends nothing twice.
    public static func webhook(path: String, payload: WebhookPayload, number: Int64, scope: String,
                               at time: Timestamp) -> BotEvent {
        var event = BotEvent(event: Event(position: number, type: .other("webhook"), at: time))
        event.payload = payload
        event.webhookPath = path
        event.scope = scope
        return event
    }

    /// The feed position: what outgoing message ids and idempotency keys derive from.
    public var position: Int64 { event.position }

    /// The part of idempotency keys that names the event: its feed position, or a
    /// webhook delivery's scope.
    public var idempotencyScope: String { scope ?? String(event.position) }
    /// The kind of event.
    public var type: EventType { event.type }
    /// The conversation the event happened in, if any.
    public var conversation: ConversationRef? { event.conversation }

    /// The message text of a `message` event; nil for every other kind.
    public var text: String? {
        event.type == .message ? event.message?.text : nil
    }

    /// Whether the event is a server notice (a `system` message).
    var isSystemMessage: Bool {
        event.type == .message && event.message?.type == .system
    }

    /// The username of whoever caused the event: a message's sender, otherwise the sender
    /// profile, the acting user (`by`), or the member the event is about.
    public var actor: String? {
        if event.type == .message, let sender = event.message?.sender { return sender }
        return sender?.username ?? event.by ?? event.user?.username
    }

    /// The member a member event (`member_joined`, `member_left`, ...) is about.
    public var member: User? {
        switch event.type {
        case .memberJoined, .memberLeft, .memberKicked, .memberMuted: event.user
        default: nil
        }
    }
}

extension BotEvent {
    /// A message from `username` with `text`: for `switchboard explain` and tests.
    ///
    /// - Parameter conversation: where it was sent; the direct conversation with the
    ///   sender when nil.
    public static func message(from username: String, text: String,
                               in conversation: ConversationAddress? = nil,
                               position: Int64 = 1, at time: Timestamp = .now()) -> BotEvent {
        let sender = syntheticUser(username, at: time)
        return synthetic(type: .message, sender: sender, text: text, in: conversation,
                         member: nil, position: position, at: time)
    }

    /// An event made up from its parts, as examples describe them.
    static func synthetic(type: EventType, sender: User?, text: String?,
                          in address: ConversationAddress?, member: User?,
                          position: Int64, at time: Timestamp) -> BotEvent {
        let conversation = syntheticConversation(address ?? .user(sender?.username ?? "someone"))
        var message: Message?
        if type == .message, let sender {
            message = Message(id: MessageID(rawValue: max(1, position)),
                              conversationID: conversation.id, seq: max(1, position),
                              sender: sender.username, senderID: sender.id,
                              text: text ?? "", createdAt: time)
        }
        // `by` names who acted only when that is someone other than the member.
        let actedOnOther = type != .message && member != nil && member?.username != sender?.username
        let event = Event(position: position, type: type, at: time, conversation: conversation,
                          message: message, user: type == .message ? nil : (member ?? sender),
                          by: actedOnOther ? sender?.username : nil)
        return BotEvent(event: event, sender: sender)
    }

    /// A user profile with only a name: nickname equal to the username.
    static func syntheticUser(_ username: String, nickname: String? = nil, isBot: Bool = false,
                              at time: Timestamp) -> User {
        User(id: UserID(rawValue: stableNumber(username)), username: username.lowercased(),
             nickname: nickname ?? username, isBot: isBot, createdAt: time)
    }

    private static func syntheticConversation(_ address: ConversationAddress) -> ConversationRef {
        switch address {
        case .id(let id): ConversationRef(id: id, kind: .direct, address: address)
        case .user: ConversationRef(id: ConversationID(rawValue: stableNumber(address.description)),
                                    kind: .direct, address: address)
        case .group: ConversationRef(id: ConversationID(rawValue: stableNumber(address.description)),
                                     kind: .group, address: address)
        case .room: ConversationRef(id: ConversationID(rawValue: stableNumber(address.description)),
                                    kind: .room, address: address)
        }
    }

    /// A small positive number derived from a name (FNV-1a), so made-up ids are the
    /// same on every run.
    private static func stableNumber(_ text: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int64(hash % 999_999) + 1
    }
}
