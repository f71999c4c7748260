import Foundation
import IMProtocol

/// The sessions list's unread count and SQLite's cached row helpers (the column lists
/// and row mappers of both engines are `Body/Rows.swift`).
extension SQLiteStore {
    /// The unread count of a member (`mb`) in a conversation (`c`) of the sessions list:
    /// others' chat messages after the read marker (SQL both stores run; `unread(_:)`
    /// caps it at 1,000). A conversation's messages are numbered without gaps, and a
    /// member's own chat message moves their read marker to it, so the count is the
    /// numbers after the marker less the system notices and deleted messages among them,
    /// which a partial index holds (`messages_not_plain`): the plain messages are not
    /// visited one by one (that cost up to 1,000 row reads per conversation, 40 ms for a
    /// list of 64).
    static let unreadSQL = """
        (c.last_seq - mb.last_read_seq - (SELECT count(*) FROM messages x WHERE x.conversation_id = c.id
            AND x.seq > mb.last_read_seq AND (x.type <> 'chat' OR x.deleted_at IS NOT NULL))) AS unread
        """

    /// The sessions list's unread count from `unreadSQL`'s value: at most 1,000.
    static func unread(_ value: Int64) -> Int { Int(min(1000, max(0, value))) }

    /// Throws `StoreError.notFound` unless the conversation exists.
    func requireConversation(_ id: ConversationID, _ connection: SQLiteConnection) throws {
        guard try connection.scalar("SELECT 1 FROM conversations WHERE id = ?", id.rawValue) != nil else {
            throw StoreError.notFound("no conversation \(id)")
        }
    }

    /// The username of an account, from the cache or the database.
    func username(_ id: UserID, _ connection: SQLiteConnection) throws -> String? {
        if let cached = usernames.withLock({ $0[id] }) { return cached }
        guard let name = try connection.first("SELECT username FROM users WHERE id = ?", id.rawValue, as: { $0.text(0) })
        else { return nil }
        usernames.withLock { $0[id] = name }
        return name
    }

    /// How `viewer` addresses a conversation: `user:<other>` for direct ones.
    func address(of record: (kind: ConversationKind, name: String), viewer: UserID, _ connection: SQLiteConnection)
        throws -> ConversationAddress
    {
        guard record.kind == .direct else { return ConversationAddress(kind: record.kind, name: record.name) }
        let parts = record.name.split(separator: ":").compactMap { Int64($0) }
        let other = parts.first { $0 != viewer.rawValue } ?? viewer.rawValue
        return .user(try username(UserID(rawValue: other), connection) ?? "unknown")
    }
}

extension Conversation {
    /// The order of the sessions list: unread first, then the most recent, then the newest.
    static func listedBefore(_ lhs: Conversation, _ rhs: Conversation) -> Bool {
        if (lhs.unread > 0) != (rhs.unread > 0) { return lhs.unread > 0 }
        if lhs.updatedAt != rhs.updatedAt { return lhs.updatedAt > rhs.updatedAt }
        return lhs.id > rhs.id
    }
}
