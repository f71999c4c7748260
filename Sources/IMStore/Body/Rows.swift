import Foundation
import IMProtocol

/// Column lists and row mappers of the store's queries, on either engine.
extension StoreEngine {
    static var userColumns: String {
        "u.id, u.username, u.nickname, u.avatar_url, u.signature, u.attrs, u.is_bot, u.created_at, u.password_hash, u.is_admin, u.feed_floor, u.suspended_at, u.deleted_at"
    }
    /// How many columns `userColumns` has, for the columns a query selects after them.
    static var userColumnCount: Int { 13 }

    /// Maps `userColumns` starting at column `start`.
    static func userRecord(_ row: Connection.Row, at start: Int = 0) throws -> UserRecord {
        let attrsText = try row.text(start + 5)
        let attrs =
            attrsText == "{}"
            ? [:]
            : (try? JSONDecoder().decode([String: String].self, from: Data(attrsText.utf8))) ?? [:]
        let user = User(
            id: UserID(rawValue: try row.int(start)), username: try row.text(start + 1),
            nickname: try row.text(start + 2), avatarURL: try row.text(start + 3),
            signature: try row.text(start + 4), attrs: attrs, isBot: try row.bool(start + 6),
            createdAt: try row.time(start + 7))
        return UserRecord(
            user: user, passwordHash: try row.text(start + 8), isAdmin: try row.bool(start + 9),
            feedFloor: try row.int(start + 10), suspendedAt: try row.optionalTime(start + 11),
            deletedAt: try row.optionalTime(start + 12))
    }

    static var tokenColumns: String {
        "t.id, t.user_id, t.device, t.created_at, t.expires_at, t.revoked_at, t.revoked_reason, t.last_used_at"
    }
    static var tokenColumnCount: Int { 8 }

    static func tokenRecord(_ row: Connection.Row, at start: Int = 0) throws -> TokenRecord {
        TokenRecord(
            id: try row.int(start), userID: UserID(rawValue: try row.int(start + 1)),
            device: try row.optionalText(start + 2), createdAt: try row.time(start + 3),
            expiresAt: try row.optionalTime(start + 4), revokedAt: try row.optionalTime(start + 5),
            revokedReason: try row.optionalText(start + 6), lastUsedAt: try row.optionalTime(start + 7))
    }

    /// The message (`m`) and its sender's name (`users su`).
    static var messageColumns: String {
        "m.id, m.conversation_id, m.seq, m.type, m.sender_id, su.username, m.text, m.client_msg_id, m.reply_to, m.created_at, m.deleted_at, m.edited_at"
    }

    /// Maps `messageColumns` starting at `start`; nil when they are NULL (an outer join
    /// found no message).
    static func message(_ row: Connection.Row, at start: Int = 0) throws -> Message? {
        guard !row.isNull(start) else { return nil }
        return Message(
            id: MessageID(rawValue: try row.int(start)),
            conversationID: ConversationID(rawValue: try row.int(start + 1)), seq: try row.int(start + 2),
            type: MessageType(rawValue: try row.text(start + 3)) ?? .chat, sender: try row.optionalText(start + 5) ?? "",
            senderID: UserID(rawValue: try row.int(start + 4)), text: try row.text(start + 6),
            clientMessageID: try row.optionalText(start + 7),
            replyTo: try row.optionalInt(start + 8).map { MessageID(rawValue: $0) },
            createdAt: try row.time(start + 9), deletedAt: try row.optionalTime(start + 10),
            editedAt: try row.optionalTime(start + 11))
    }

    static var conversationColumns: String {
        "c.id, c.kind, c.name, c.title, c.logo_url, c.description, c.created_by, c.created_at, c.last_seq, c.updated_at, c.member_count, c.join_policy, c.new_members, c.slow_mode, c.info_editable_by"
    }

    static func conversationRecord(_ row: Connection.Row, at start: Int = 0) throws -> ConversationRecord {
        ConversationRecord(
            id: ConversationID(rawValue: try row.int(start)),
            kind: ConversationKind(rawValue: try row.text(start + 1)) ?? .group, name: try row.text(start + 2),
            title: try row.text(start + 3), logoURL: try row.text(start + 4), description: try row.text(start + 5),
            createdBy: try row.optionalInt(start + 6).map { UserID(rawValue: $0) },
            createdAt: try row.time(start + 7), lastSeq: try row.int(start + 8),
            updatedAt: try row.time(start + 9), memberCount: Int(try row.int(start + 10)),
            joinPolicy: JoinPolicy(rawValue: try row.text(start + 11)) ?? .invite,
            newMembers: NewMemberPolicy(rawValue: try row.text(start + 12)) ?? .full,
            slowModeSeconds: Int(try row.int(start + 13)),
            infoEditableBy: InfoEditors(rawValue: try row.text(start + 14)) ?? .admins)
    }

    /// Throws `StoreError.notFound` unless the account exists.
    static func requireUser(_ id: UserID, _ connection: Connection) throws {
        guard try connection.first("SELECT 1 FROM users WHERE id = ?1", id.rawValue, as: { _ in true }) != nil else {
            throw StoreError.notFound("no account \(id)")
        }
    }

    /// The conversation's row, or `StoreError.notFound`; with `forUpdate`, locked until
    /// the transaction ends.
    static func record(_ id: ConversationID, _ connection: Connection, forUpdate: Bool = false) throws
        -> ConversationRecord
    {
        guard let record = try connection.first(
            forUpdate
                ? "SELECT \(conversationColumns) FROM conversations c WHERE c.id = ?1 FOR UPDATE"
                : "SELECT \(conversationColumns) FROM conversations c WHERE c.id = ?1",
            id.rawValue, as: { try conversationRecord($0) })
        else { throw StoreError.notFound("no conversation \(id)") }
        return record
    }

    /// The unread count of a member (`mb`) in a conversation (`c`) of the sessions list:
    /// others' chat messages after the read marker (SQL both stores run; `unread(_:)`
    /// caps it at 1,000). A conversation's messages are numbered without gaps, and a
    /// member's own chat message moves their read marker to it, so the count is the
    /// numbers after the marker less the system notices and deleted messages among them,
    /// which a partial index holds (`messages_not_plain`): the plain messages are not
    /// visited one by one (that cost up to 1,000 row reads per conversation, 40 ms for a
    /// list of 64).
    static var unreadSQL: String {
        """
        (c.last_seq - mb.last_read_seq - (SELECT count(*) FROM messages x WHERE x.conversation_id = c.id
            AND x.seq > mb.last_read_seq AND (x.type <> 'chat' OR x.deleted_at IS NOT NULL))) AS unread
        """
    }

    /// The sessions list's unread count from `unreadSQL`'s value: at most 1,000.
    static func unread(_ value: Int64) -> Int { Int(min(1000, max(0, value))) }

    /// Fills in the fields a non-message event keeps as JSON.
    static func applyPayload(_ payloadText: String?, to event: inout Event) {
        guard let payloadText,
            let payload = try? JSONDecoder().decode(EventPayload.self, from: Data(payloadText.utf8))
        else { return }
        event.user = payload.user
        event.by = payload.by
        event.info = payload.info
        event.seq = payload.seq
        event.reason = payload.reason
        event.until = payload.until
        event.role = payload.role
        event.via = payload.via
        event.notice = payload.notice
    }
}
