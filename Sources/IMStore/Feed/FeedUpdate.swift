import IMProtocol

/// New feed events from one committed batch: the newest position of each user, and the
/// events themselves, so that a parked poll can be answered without reading its feed.
public struct FeedUpdate: Sendable {
    /// Every event of the batch, in position order.
    public var entries: [FeedEntry]
    /// Set when updates of commits up to this position may never have been told (another
    /// node's, while this one was not listening): any feed may have grown without an
    /// update saying so, and observers look again. Every commit after it is told.
    public var missedThrough: Int64?

    /// An update; empty by default.
    public init(entries: [FeedEntry] = [], missedThrough: Int64? = nil) {
        self.entries = entries
        self.missedThrough = missedThrough
    }

    /// The newest position the batch gave each user's feed. It costs a look at every
    /// recipient of every event, so the committing thread never asks (a message to a
    /// group of 10,000 would cost it 10,000 map updates): the event hub does, on its own
    /// queue.
    public var latest: [UserID: Int64] {
        var latest: [UserID: Int64] = [:]
        for entry in entries {
            for user in entry.recipients { latest[user] = Swift.max(latest[user] ?? 0, entry.position) }
        }
        return latest
    }

    /// Whether an event after `position` reached `user` (a look at each such event's
    /// recipients, by bisection when they ascend).
    public func reaches(_ user: UserID, after position: Int64) -> Bool {
        for entry in entries.reversed() {
            guard entry.position > position else { break }
            if entry.index(of: user) != nil { return true }
        }
        return false
    }

    /// The newest position of the update (its events are in position order).
    public var newest: Int64 { entries.last?.position ?? 0 }

    /// One event of the update as one recipient sees it.
    public struct Match: Sendable, Hashable {
        /// The event's index in `entries`.
        public var entry: Int
        /// Which of the entry's addresses the recipient sees (the same for every member
        /// of a group or room): recipients with the same `entry` and `address` get the
        /// same event, byte for byte.
        public var address: Int
    }

    /// The events this batch added to `user`'s feed after `position`, oldest first and at
    /// most `limit`; nil when one of them can only be read from the feed (anything but a
    /// message).
    ///
    /// It says nothing of events of earlier batches: a caller uses it only when it knows
    /// the feed held nothing after `position` before this batch.
    public func matches(for user: UserID, after position: Int64, limit: Int) -> [Match]? {
        var matches: [Match] = []
        for (index, entry) in entries.enumerated() where entry.position > position {
            guard matches.count < limit, let recipient = entry.index(of: user) else { continue }
            guard let message = entry.message else { return nil }
            matches.append(Match(entry: index, address: message.addresses.count == 1 ? 0 : recipient))
        }
        return matches
    }

    /// The events `matches(for:after:limit:)` finds, exactly as
    /// `EventStore.events(for:after:limit:)` would read them.
    public func events(for user: UserID, after position: Int64, limit: Int) -> [Event]? {
        guard let matches = matches(for: user, after: position, limit: max(0, limit)) else { return nil }
        return matches.compactMap { event(of: $0) }
    }

    /// The event one match stands for.
    public func event(of match: Match) -> Event? {
        guard entries.indices.contains(match.entry), let message = entries[match.entry].message,
            message.addresses.indices.contains(match.address)
        else { return nil }
        return Event(
            position: entries[match.entry].position, type: .message, at: message.message.createdAt,
            conversation: ConversationRef(
                id: message.message.conversationID, kind: message.kind, address: message.addresses[match.address]),
            message: message.message)
    }
}

/// One event of a committed batch: its position (the same in every recipient's feed)
/// and whose feeds it reached.
public struct FeedEntry: Sendable {
    /// The event's position.
    public var position: Int64
    /// Whose feeds it is in.
    public var recipients: [UserID]
    /// The event as a message, when it is one; nil for the other kinds.
    public var message: FeedMessage?
    /// True when `recipients` ascend, so a recipient is found by bisection.
    private let ascending: Bool

    /// The event at `position` for `recipients`; `ascending` when the caller knows the
    /// recipients ascend (a conversation's members do), else it is found out.
    public init(position: Int64, recipients: [UserID], message: FeedMessage? = nil, ascending: Bool? = nil) {
        self.position = position
        self.recipients = recipients
        self.message = message
        self.ascending = ascending ?? zip(recipients, recipients.dropFirst()).allSatisfy { $0.rawValue < $1.rawValue }
    }

    /// Where `user` is among the recipients, or nil.
    public func index(of user: UserID) -> Int? {
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
}
