import Foundation
import IMProtocol

/// Column lists and row mappers shared by the store's queries.
extension SQLiteStore {
    static let userColumns =
        "u.id, u.username, u.nickname, u.avatar_url, u.signature, u.attrs, u.is_bot, u.created_at, u.password_hash, u.is_admin, u.feed_floor, u.suspended_at, u.deleted_at"
    /// How many columns `userColumns` has, for the columns a query selects after them.
    static let userColumnCount: Int32 = 13

    /// Maps `userColumns` starting at column `start`.
    static func userRecord(_ row: SQLiteRow, at start: Int32 = 0) -> UserRecord {
        let attrsText = row.text(start + 5)
        let attrs =
            attrsText == "{}"
            ? [:]
            : (try? JSONDecoder().decode([String: String].self, from: Data(attrsText.utf8))) ?? [:]
        let user = User(
            id: UserID(rawValue: row.int(start)), username: row.text(start + 1),
            nickname: row.text(start + 2), avatarURL: row.text(start + 3),
            signature: row.text(start + 4), attrs: attrs, isBot: row.bool(start + 6),
            createdAt: Timestamp(milliseconds: row.int(start + 7)))
        return UserRecord(
            user: user, passwordHash: row.text(start + 8), isAdmin: row.bool(start + 9),
            feedFloor: row.int(start + 10), suspendedAt: row.optionalInt(start + 11).map { Timestamp(milliseconds: $0) },
            deletedAt: row.optionalInt(start + 12).map { Timestamp(milliseconds: $0) })
    }

    static let messageColumns =
        "m.id, m.conversation_id, m.seq, m.type, m.sender_id, su.username, m.text, m.client_msg_id, m.reply_to, m.created_at, m.deleted_at, m.edited_at"

    /// Maps `messageColumns` (with `users su` joined on the sender) starting at `start`;
    /// nil when the message columns are NULL (an outer join found none).
    static func message(_ row: SQLiteRow, at start: Int32 = 0) -> Message? {
        guard !row.isNull(start) else { return nil }
        return Message(
            id: MessageID(rawValue: row.int(start)),
            conversationID: ConversationID(rawValue: row.int(start + 1)), seq: row.int(start + 2),
            type: MessageType(rawValue: row.text(start + 3)) ?? .chat, sender: row.text(start + 5),
            senderID: UserID(rawValue: row.int(start + 4)), text: row.text(start + 6),
            clientMessageID: row.optionalText(start + 7),
            replyTo: row.optionalInt(start + 8).map { MessageID(rawValue: $0) },
            createdAt: Timestamp(milliseconds: row.int(start + 9)),
            deletedAt: row.optionalInt(start + 10).map { Timestamp(milliseconds: $0) },
            editedAt: row.optionalInt(start + 11).map { Timestamp(milliseconds: $0) })
    }

    static let conversationColumns =
        "c.id, c.kind, c.name, c.title, c.logo_url, c.description, c.created_by, c.created_at, c.last_seq, c.updated_at, c.member_count, c.join_policy, c.new_members, c.slow_mode, c.info_editable_by"

    static func conversationRecord(_ row: SQLiteRow, at start: Int32 = 0) -> ConversationRecord {
        ConversationRecord(
            id: ConversationID(rawValue: row.int(start)),
            kind: ConversationKind(rawValue: row.text(start + 1)) ?? .group, name: row.text(start + 2),
            title: row.text(start + 3), logoURL: row.text(start + 4), description: row.text(start + 5),
            createdBy: row.optionalInt(start + 6).map { UserID(rawValue: $0) },
            createdAt: Timestamp(milliseconds: row.int(start + 7)), lastSeq: row.int(start + 8),
            updatedAt: Timestamp(milliseconds: row.int(start + 9)), memberCount: Int(row.int(start + 10)),
            joinPolicy: JoinPolicy(rawValue: row.text(start + 11)) ?? .invite,
            newMembers: NewMemberPolicy(rawValue: row.text(start + 12)) ?? .full, slowModeSeconds: Int(row.int(start + 13)),
            infoEditableBy: InfoEditors(rawValue: row.text(start + 14)) ?? .admins)
    }

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

    /// Throws `StoreError.notFound` unless the account exists.
    func requireUser(_ id: UserID, _ connection: SQLiteConnection) throws {
        guard try connection.scalar("SELECT 1 FROM users WHERE id = ?", id.rawValue) != nil else {
            throw StoreError.notFound("no account \(id)")
        }
    }

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
