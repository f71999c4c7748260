import Foundation
import IMProtocol

/// SQLite's cached row helpers (the column lists and row mappers of both engines are
/// `Body/Rows.swift`).
extension SQLiteStore {
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
