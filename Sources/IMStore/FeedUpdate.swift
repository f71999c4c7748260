import IMProtocol

/// New feed entries from one committed batch: the newest position of each user, and the
/// entries themselves, so that a parked poll can be answered without reading its feed.
public struct FeedUpdate: Sendable {
    /// The newest position the batch gave each user's feed.
    public var latest: [UserID: Int64]
    /// Every write of the batch that added feed entries, in position order.
    public var fanOuts: [FeedFanOut]

    /// An update; empty by default.
    public init(latest: [UserID: Int64] = [:], fanOuts: [FeedFanOut] = []) {
        self.latest = latest
        self.fanOuts = fanOuts
    }

    /// The events this batch added to `user`'s feed after `position`, oldest first and at
    /// most `limit`, exactly as `EventStore.events(for:after:limit:)` would read them; nil
    /// when one of them can only be read from the feed (anything but a message).
    ///
    /// It says nothing of events of earlier batches: a caller uses it only when it knows
    /// the feed held nothing after `position` before this batch.
    public func events(for user: UserID, after position: Int64, limit: Int) -> [Event]? {
        var events: [Event] = []
        for fanOut in fanOuts {
            guard let index = fanOut.index(of: user) else { continue }
            let entry = fanOut.firstPosition + Int64(index)
            guard entry > position else { continue }
            guard let event = fanOut.message?.event(at: entry, recipient: index) else { return nil }
            events.append(event)
        }
        events.sort { $0.position < $1.position }
        return Array(events.prefix(max(0, limit)))
    }
}

/// The feed entries one write added: one per recipient, at consecutive positions.
public struct FeedFanOut: Sendable {
    /// The position of the first recipient's entry; the others follow in order.
    public var firstPosition: Int64
    /// Whose feeds got an entry, in position order.
    public var recipients: [UserID]
    /// The entries' message event, when they are one; nil for the other kinds.
    public var message: FeedMessage?
    /// True when `recipients` ascend, so a recipient is found by bisection.
    private let ascending: Bool

    /// The entries of one write.
    public init(firstPosition: Int64, recipients: [UserID], message: FeedMessage? = nil) {
        self.firstPosition = firstPosition
        self.recipients = recipients
        self.message = message
        ascending = zip(recipients, recipients.dropFirst()).allSatisfy { $0.rawValue < $1.rawValue }
    }

    /// Where `user` is among the recipients, or nil.
    func index(of user: UserID) -> Int? {
        guard ascending else { return recipients.firstIndex(of: user) }
        var low = 0
        var high = recipients.count
        while low < high {
            let middle = (low + high) / 2
            if recipients[middle].rawValue < user.rawValue { low = middle + 1 } else { high = middle }
        }
        return low < recipients.count && recipients[low] == user ? low : nil
    }
}

/// A message as its recipients' feeds carry it.
public struct FeedMessage: Sendable {
    /// The message as stored.
    public var message: Message
    /// The kind of its conversation.
    public var kind: ConversationKind
    /// How the recipients address the conversation: one address for all of them (groups,
    /// rooms), or one per recipient in recipient order (`user:<the other one>`).
    public var addresses: [ConversationAddress]

    /// A message and how its recipients address its conversation.
    public init(message: Message, kind: ConversationKind, addresses: [ConversationAddress]) {
        self.message = message
        self.kind = kind
        self.addresses = addresses
    }

    func event(at position: Int64, recipient index: Int) -> Event? {
        let address = addresses.count == 1 ? addresses.first : addresses.indices.contains(index) ? addresses[index] : nil
        guard let address else { return nil }
        return Event(
            position: position, type: .message, at: message.createdAt,
            conversation: ConversationRef(id: message.conversationID, kind: kind, address: address),
            message: message)
    }
}
