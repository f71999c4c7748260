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
    /// The role of a member event's member in the group, when the runner knows it.
    public var memberRole: MemberRole?
    /// When the sender joined the event's group, when the runner knows it
    /// (`from: {joined_within: …}`).
    public var senderJoinedAt: Timestamp? = nil
    /// The `schedule` or `quiet` trigger a timer event is for (its id); nil for feed events.
    public var trigger: String? = nil
    /// A webhook delivery's payload; nil for feed events.
    public var payload: WebhookPayload?
    /// The listener path a webhook delivery came in on.
    public var webhookPath: String?
    /// What message ids and idempotency keys of what no feed event caused derive from.
    private var scope: String?

    /// Wraps a feed event.
    public init(event: Event, sender: User? = nil, senderRole: MemberRole? = nil, memberRole: MemberRole? = nil) {
        self.event = event
        self.sender = sender
        self.senderRole = senderRole
        self.memberRole = memberRole
    }

    /// How the member of a `member_joined` event came in, as the feed says (`via`).
    public var joinedVia: JoinVia? {
        event.type == .memberJoined ? event.via.map(JoinVia.init) : nil
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

    /// The message text of a `message` event, or the new text of a `message_edited`
    /// one; nil for every other kind.
    public var text: String? {
        carriesText ? event.message?.text : nil
    }

    /// Whether the event is a message someone wrote: a new one, or an edit of one.
    var carriesText: Bool { event.type == .message || event.type == .messageEdited }

    /// Whether the event is a server notice (a `system` message).
    var isSystemMessage: Bool {
        event.type == .message && event.message?.type == .system
    }

    /// The username of whoever caused the event: a message's sender, otherwise the sender
    /// profile, the acting user (`by`), or the member the event is about.
    public var actor: String? {
        if carriesText, let sender = event.message?.sender { return sender }
        return sender?.username ?? event.by ?? event.user?.username
    }

    /// The member a member event (`member_joined`, `member_left`, ...) is about.
    public var member: User? {
        Self.memberEventTypes.contains(event.type) ? event.user : nil
    }

    /// The kinds of events that are about a group member.
    static let memberEventTypes: [EventType] = [
        .memberJoined, .memberLeft, .memberKicked, .memberBanned, .memberUnbanned, .memberMuted, .memberUnmuted,
        .roleChanged, .joinRequested,
    ]
}

extension BotEvent {
    /// A message from `username` with `text`: for `switchboard explain` and tests.
    ///
    /// - Parameter conversation: where it was sent; the direct conversation with the
    ///   sender when nil.
    public static func message(from username: String, text: String,
                               in conversation: ConversationAddress? = nil,
                               position: Int64 = 1, at time: Timestamp = .now()) -> BotEvent {
        made(.message, from: Person(username), text: text, in: conversation, position: position, at: time)
    }

    /// Someone an event made up from a few fields names: its sender or its member.
    public struct Person: Sendable, Hashable {
        /// Lowered.
        public var username: String
        /// The display name.
        public var nickname: String
        public var isBot: Bool
        /// Their role in the event's group.
        public var role: MemberRole?

        /// Creates a person; the nickname is the username as written unless given.
        public init(_ username: String, nickname: String? = nil, isBot: Bool = false, role: MemberRole? = nil) {
            self.username = username.lowercased()
            self.nickname = nickname ?? username
            self.isBot = isBot
            self.role = role
        }
    }

    /// An event made up from its parts, as examples and `switchboard explain` describe
    /// one.
    ///
    /// A member event's sender is its member unless `sender` names someone else, who
    /// is then the one who acted (`by`: an admin who kicked the member); its member is the
    /// sender when `member` is nil. `in` defaults to the direct conversation with the sender.
    public static func made(_ type: EventType, from sender: Person?, member: Person? = nil, via: JoinVia? = nil,
                            text: String? = nil, in address: ConversationAddress? = nil,
                            position: Int64, at time: Timestamp) -> BotEvent {
        let isMessage = type == .message || type == .messageEdited
        let member = isMessage ? nil : member ?? sender
        let sender = sender ?? member
        let senderUser = sender.map { syntheticUser($0, at: time) }
        let conversation = syntheticConversation(address ?? .user(sender?.username ?? "someone"))
        var message: Message?
        if isMessage, let senderUser {
            message = Message(id: MessageID(rawValue: max(1, position)),
                              conversationID: conversation.id, seq: max(1, position),
                              sender: senderUser.username, senderID: senderUser.id,
                              text: text ?? "", createdAt: time)
        }
        // `by` names who acted only when that is someone other than the member.
        let actedOnOther = member != nil && sender?.username != member?.username
        var event = Event(position: position, type: type, at: time, conversation: conversation,
                          message: message, user: member.map { syntheticUser($0, at: time) },
                          by: actedOnOther ? sender?.username : nil)
        if type == .memberJoined { event.via = via.map(JoinPolicy.init) }
        return BotEvent(event: event, sender: senderUser, senderRole: sender?.role, memberRole: member?.role)
    }

    /// This message event as a `message_edited` event at `position`: the same message,
    /// now saying `text`.
    func edited(to text: String, position: Int64) -> BotEvent {
        var edited = self
        edited.event.position = position
        edited.event.type = .messageEdited
        edited.event.message?.text = text
        return edited
    }

    /// The profile of a made-up person, with an id that is the same on every run.
    private static func syntheticUser(_ person: Person, at time: Timestamp) -> User {
        User(id: UserID(rawValue: stableNumber(person.username)), username: person.username,
             nickname: person.nickname, isBot: person.isBot, createdAt: time)
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
