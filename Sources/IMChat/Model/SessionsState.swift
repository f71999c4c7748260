import IMProtocol

/// The Sessions screen: every conversation with its last message and unread count,
/// unread first, then most recent, kept current by live events.
///
/// Unread counts follow the server's rule: chat messages from others after the read
/// marker. Joins, leaves, info changes (system notices) and profile changes never count,
/// nor do one's own messages, which move one's marker (the server does the same).
public struct SessionsState: Sendable, Equatable {
    /// The rows, in display order.
    public private(set) var rows: [Conversation] = []
    /// The selected row's conversation.
    public var selectedID: ConversationID?
    /// The selected invitation or request above the rows (an index into them), when the
    /// selection is there instead.
    public var waitingSelected: Int?
    /// False until the first list arrived.
    public var loaded = false
    /// Rows whose count missed messages: a message arrived past a gap in the sequence
    /// (those before it came while the row was being fetched, and were not counted).
    /// Such a row takes the next fetched row that is as far along, and is fetched again
    /// until one is.
    private var recounting: Set<ConversationID> = []
    /// Rows being fetched (`GET /v1/conversations/<c>`), one fetch per row at a time; true
    /// when the row was asked for again meanwhile (it is fetched once more when the
    /// answer comes, however many messages asked).
    private var fetching: [ConversationAddress: Bool] = [:]

    public init() {}

    /// Whether to fetch the row of `address` now: false when a fetch of it is out already
    /// (it is then fetched once more when that one ends, see ``fetchEnded(_:)``).
    public mutating func startFetch(_ address: ConversationAddress) -> Bool {
        if fetching[address] != nil {
            fetching[address] = true
            return false
        }
        fetching[address] = false
        return true
    }

    /// A fetch of the row of `address` ended (answered, missing or failed); true when the
    /// row was asked for again meanwhile and is to be fetched once more.
    public mutating func fetchEnded(_ address: ConversationAddress) -> Bool {
        fetching.removeValue(forKey: address) ?? false
    }

    /// The selected row's index, if any row is selected.
    public var selectedIndex: Int? {
        guard let selectedID else { return rows.isEmpty ? nil : 0 }
        return rows.firstIndex { $0.id == selectedID } ?? (rows.isEmpty ? nil : 0)
    }

    /// Every unread message of every conversation.
    public var totalUnread: Int { rows.reduce(0) { $0 + $1.unread } }

    /// Replaces the rows with the server's list, keeping a row that live events have
    /// already carried past the list's snapshot (see `newer(_:than:)`).
    /// Returns the rows whose count is still being recounted (to fetch again).
    @discardableResult
    public mutating func replace(_ conversations: [Conversation]) -> [ConversationAddress] {
        let current = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        rows = conversations.map { fetched in current[fetched.id].map { taken(fetched, over: $0) } ?? fetched }
        recounting.formIntersection(rows.map(\.id))
        loaded = true
        sort()
        return rows.filter { recounting.contains($0.id) }.map(\.address)
    }

    /// Adds or replaces one row (from `GET /v1/conversations/<c>`). Returns false when
    /// its count is still being recounted (to fetch again).
    @discardableResult
    public mutating func upsert(_ conversation: Conversation) -> Bool {
        if let index = rows.firstIndex(where: { $0.id == conversation.id }) {
            rows[index] = taken(conversation, over: rows[index])
        } else {
            rows.append(conversation)
        }
        sort()
        return !recounting.contains(conversation.id)
    }

    /// `newer(_:than:)`, ending a recount when the fetched row is as far along.
    private mutating func taken(_ fetched: Conversation, over current: Conversation) -> Conversation {
        let row = Self.newer(fetched, than: current)
        if row == fetched { recounting.remove(fetched.id) }
        return row
    }

    /// The server's row, unless the row here is ahead of it. Fetches overlap with live
    /// events: a row fetched for the first message of a conversation can arrive after
    /// the next messages were counted onto an earlier fetch, and taking its older count
    /// would lose them. The row whose last message is newer wins; on a tie the server's
    /// (its count also knows read markers this client only heard of).
    static func newer(_ fetched: Conversation, than current: Conversation) -> Conversation {
        (current.lastMessage?.seq ?? 0) > (fetched.lastMessage?.seq ?? 0) ? current : fetched
    }

    /// The row of a conversation.
    public func row(_ id: ConversationID) -> Conversation? { rows.first { $0.id == id } }

    /// Moves the selection by `offset` rows.
    public mutating func move(_ offset: Int) {
        guard !rows.isEmpty else { return }
        let index = min(max((selectedIndex ?? 0) + offset, 0), rows.count - 1)
        selectedID = rows[index].id
    }

    /// What a new message means for the list; returns false when the conversation has
    /// no row yet, or its count cannot be known here (the caller fetches it).
    ///
    /// `seen` is true when the message is on screen in the open dialogue: it then
    /// counts as read at once.
    public mutating func apply(_ message: Message, me: String, seen: Bool) -> Bool {
        guard let index = rows.firstIndex(where: { $0.id == message.conversationID }) else { return false }
        var row = rows[index]
        // At least once delivery: a message already counted is not counted again.
        if let last = row.lastMessage, message.seq <= last.seq {
            if message.seq == last.seq { row.lastMessage = message }
            rows[index] = row
            return true
        }
        // Messages before this one were not seen here (they came while the row was
        // fetched): the count is the server's to give.
        let gap = message.seq > (row.lastMessage?.seq ?? 0) + 1
        if gap { recounting.insert(row.id) }
        row.lastMessage = message
        row.updatedAt = max(row.updatedAt, message.createdAt)
        if message.type == .chat {
            if message.sender.lowercased() == me.lowercased() {
                row.lastReadSeq = message.seq
                row.unread = 0
            } else if seen {
                row.lastReadSeq = message.seq
            } else if message.seq > row.lastReadSeq {
                row.unread += 1
            }
        }
        rows[index] = row
        sort()
        return !recounting.contains(row.id)
    }

    /// A read marker moved (here or in another client of the account). Returns true when
    /// the unread count cannot be known locally and the row must be fetched again.
    public mutating func markRead(_ id: ConversationID, seq: Int64) -> Bool {
        guard let index = rows.firstIndex(where: { $0.id == id }), seq > rows[index].lastReadSeq else { return false }
        rows[index].lastReadSeq = seq
        if seq >= rows[index].lastMessage?.seq ?? 0 {
            rows[index].unread = 0
            sort()
            return false
        }
        return true
    }

    /// This client moved the read marker of a conversation it shows, and knows how many
    /// messages after it are unread.
    public mutating func markRead(_ id: ConversationID, seq: Int64, unread: Int) {
        guard let index = rows.firstIndex(where: { $0.id == id }) else { return }
        rows[index].lastReadSeq = max(rows[index].lastReadSeq, seq)
        rows[index].unread = unread
        sort()
    }

    /// A message's text changed (edited or deleted) where it is the last one shown.
    public mutating func replaceLast(_ message: Message) {
        guard let index = rows.firstIndex(where: { $0.id == message.conversationID }),
            rows[index].lastMessage?.id == message.id
        else { return }
        rows[index].lastMessage = message
    }

    /// A group's or room's title changed, or a user's nickname (for their direct row).
    public mutating func rename(_ address: ConversationAddress, to name: String) {
        for index in rows.indices where DialogueKey(address: rows[index].address).address == address {
            rows[index].displayName = name
        }
    }

    /// Drops the row of a group left or a room exited.
    public mutating func remove(_ address: ConversationAddress) {
        rows.removeAll { DialogueKey(address: $0.address).address == address }
    }

    private mutating func sort() {
        rows.sort { lhs, rhs in
            if (lhs.unread > 0) != (rhs.unread > 0) { return lhs.unread > 0 }
            if lhs.updatedAt != rhs.updatedAt { return lhs.updatedAt > rhs.updatedAt }
            return lhs.id > rhs.id
        }
    }
}
