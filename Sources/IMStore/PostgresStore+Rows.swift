import Foundation
import IMProtocol

/// Column lists and row mappers shared by the PostgreSQL store's queries (the columns of
/// `SQLiteStore+Rows.swift`, read from binary rows).
extension PostgresStore {
    static let userColumns = SQLiteStore.userColumns
    static let userColumnCount = Int(SQLiteStore.userColumnCount)

    /// Maps `userColumns` starting at column `start`.
    static func userRecord(_ row: PostgresRow, at start: Int = 0) throws -> UserRecord {
        let attrsText = try row.text(start + 5)
        let attrs =
            attrsText == "{}"
            ? [:]
            : (try? JSONDecoder().decode([String: String].self, from: Data(attrsText.utf8))) ?? [:]
        let user = User(
            id: UserID(rawValue: try row.int(start)), username: try row.text(start + 1),
            nickname: try row.text(start + 2), avatarURL: try row.text(start + 3),
            signature: try row.text(start + 4), attrs: attrs, isBot: try row.bool(start + 6),
            createdAt: Timestamp(milliseconds: try row.int(start + 7)))
        return UserRecord(
            user: user, passwordHash: try row.text(start + 8), isAdmin: try row.bool(start + 9),
            feedFloor: try row.int(start + 10), suspendedAt: try row.optionalInt(start + 11).map { Timestamp(milliseconds: $0) },
            deletedAt: try row.optionalInt(start + 12).map { Timestamp(milliseconds: $0) })
    }

    static let tokenColumns = SQLiteStore.tokenColumns
    static let tokenColumnCount = Int(SQLiteStore.tokenColumnCount)

    static func tokenRecord(_ row: PostgresRow, at start: Int = 0) throws -> TokenRecord {
        TokenRecord(
            id: try row.int(start), userID: UserID(rawValue: try row.int(start + 1)),
            device: try row.optionalText(start + 2), createdAt: Timestamp(milliseconds: try row.int(start + 3)),
            expiresAt: try row.optionalInt(start + 4).map { Timestamp(milliseconds: $0) },
            revokedAt: try row.optionalInt(start + 5).map { Timestamp(milliseconds: $0) },
            revokedReason: try row.optionalText(start + 6), lastUsedAt: try row.optionalInt(start + 7).map { Timestamp(milliseconds: $0) })
    }

    /// `SQLiteStore.messageColumns`: the message (`m`) and its sender's name (`users su`).
    static let messageColumns = SQLiteStore.messageColumns

    /// Maps `messageColumns` starting at `start`; nil when they are NULL (an outer join
    /// found no message).
    static func message(_ row: PostgresRow, at start: Int = 0) throws -> Message? {
        guard !row.isNull(start) else { return nil }
        return Message(
            id: MessageID(rawValue: try row.int(start)),
            conversationID: ConversationID(rawValue: try row.int(start + 1)), seq: try row.int(start + 2),
            type: MessageType(rawValue: try row.text(start + 3)) ?? .chat, sender: try row.optionalText(start + 5) ?? "",
            senderID: UserID(rawValue: try row.int(start + 4)), text: try row.text(start + 6),
            clientMessageID: try row.optionalText(start + 7),
            replyTo: try row.optionalInt(start + 8).map { MessageID(rawValue: $0) },
            createdAt: Timestamp(milliseconds: try row.int(start + 9)),
            deletedAt: try row.optionalInt(start + 10).map { Timestamp(milliseconds: $0) },
            editedAt: try row.optionalInt(start + 11).map { Timestamp(milliseconds: $0) })
    }

    static let conversationColumns = SQLiteStore.conversationColumns

    static func conversationRecord(_ row: PostgresRow, at start: Int = 0) throws -> ConversationRecord {
        ConversationRecord(
            id: ConversationID(rawValue: try row.int(start)),
            kind: ConversationKind(rawValue: try row.text(start + 1)) ?? .group, name: try row.text(start + 2),
            title: try row.text(start + 3), logoURL: try row.text(start + 4), description: try row.text(start + 5),
            createdBy: try row.optionalInt(start + 6).map { UserID(rawValue: $0) },
            createdAt: Timestamp(milliseconds: try row.int(start + 7)), lastSeq: try row.int(start + 8),
            updatedAt: Timestamp(milliseconds: try row.int(start + 9)), memberCount: Int(try row.int(start + 10)),
            joinPolicy: JoinPolicy(rawValue: try row.text(start + 11)) ?? .invite,
            newMembers: NewMemberPolicy(rawValue: try row.text(start + 12)) ?? .full,
            slowModeSeconds: Int(try row.int(start + 13)),
            infoEditableBy: InfoEditors(rawValue: try row.text(start + 14)) ?? .admins)
    }

    /// The SQL of the name `viewer` ($`viewer`) addresses a conversation (`c`) by: the
    /// other side's username for a direct one (`<low id>:<high id>`), read now, since
    /// another node may have renamed it (a deleted account).
    static func otherNameSQL(viewer: Int) -> String {
        """
        CASE WHEN c.kind = 'direct' THEN (SELECT o.username FROM users o WHERE o.id = CASE
            WHEN split_part(c.name, ':', 1)::int8 = $\(viewer) THEN split_part(c.name, ':', 2)::int8
            ELSE split_part(c.name, ':', 1)::int8 END) END
        """
    }

    /// How a viewer addresses a conversation of `kind` and `name`, given the other side's
    /// name read with `otherNameSQL`.
    static func address(kind: ConversationKind, name: String, other: String?) -> ConversationAddress {
        kind == .direct ? .user(other ?? "unknown") : ConversationAddress(kind: kind, name: name)
    }

    /// Throws `StoreError.notFound` unless the account exists.
    static func requireUser(_ id: UserID, _ connection: PostgresConnection) throws {
        guard try connection.first("SELECT 1 FROM users WHERE id = $1", id.rawValue, as: { _ in true }) != nil else {
            throw StoreError.notFound("no account \(id)")
        }
    }

    /// The username of an account, or nil.
    static func username(_ id: UserID, _ connection: PostgresConnection) throws -> String? {
        try connection.first("SELECT username FROM users WHERE id = $1", id.rawValue, as: { try $0.text(0) })
    }

    /// Where an acting user stands in a group, read in the write's transaction.
    static func standing(_ actor: ActingUser, in conversationID: ConversationID, _ connection: PostgresConnection)
        throws -> GroupRules.Standing
    {
        GroupRules.Standing(
            role: try memberState(conversationID, actor.id, connection)?.role,
            isServerAdministrator: actor.isServerAdministrator)
    }

    /// The conversation's row, or `StoreError.notFound`.
    static func record(_ id: ConversationID, _ connection: PostgresConnection, forUpdate: Bool = false) throws
        -> ConversationRecord
    {
        guard let record = try connection.first(
            "SELECT \(conversationColumns) FROM conversations c WHERE c.id = $1\(forUpdate ? " FOR UPDATE" : "")",
            id.rawValue, as: { try conversationRecord($0) })
        else { throw StoreError.notFound("no conversation \(id)") }
        return record
    }
}
