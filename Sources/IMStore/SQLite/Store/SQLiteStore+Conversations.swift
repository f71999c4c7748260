import Foundation
import IMProtocol

/// How the SQLite engine adds and removes members (at a position the writer issues, so
/// the member's feed reads from the announcing event on) and its sessions list (the rest
/// of `ConversationStore`: `Body/Conversations.swift`).
extension SQLiteStore {
    func addMember(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, _ userID: UserID,
        role: MemberRole, restricted: Bool = false, change: MembershipChange, at now: Timestamp
    ) throws -> Bool {
        let connection = context.connection
        try requireConversation(conversationID, connection)
        try Self.requireUser(userID, connection)
        // The member reads the conversation from the event that announces them on.
        let position = positions.issue()
        let added = try Self.insertMember(
            connection, conversationID, userID, role: role, restricted: restricted, at: now, position: position)
        guard added else { return false }
        try connection.execute(
            "UPDATE conversations SET member_count = member_count + 1 WHERE id = ?", conversationID.rawValue)
        try announce(context, conversationID, member: userID, change: change, at: now, position: position)
        return true
    }

    /// Removes a member inside a write job; see `removeMember(_:_:change:)`.
    func removeMember(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, _ userID: UserID,
        change: MembershipChange, at now: Timestamp
    ) throws -> Bool {
        let connection = context.connection
        guard try connection.scalar(
            "SELECT 1 FROM members WHERE conversation_id = ? AND user_id = ?", conversationID.rawValue, userID.rawValue)
            != nil
        else { return false }
        // Everyone is told, the member included, who reads up to this event and no further.
        let position = positions.issue()
        try announce(context, conversationID, member: userID, change: change, at: now, position: position)
        _ = try deleteMember(connection, conversationID, userID, position: position)
        try connection.execute(
            "UPDATE conversations SET member_count = member_count - 1 WHERE id = ?", conversationID.rawValue)
        // A group is never left without an owner: the longest-standing admin, else
        // member, takes over.
        try connection.execute(
            """
            UPDATE members SET role = 'owner'
            WHERE conversation_id = ?1 AND NOT EXISTS (SELECT 1 FROM members WHERE conversation_id = ?1 AND role = 'owner')
                AND (SELECT kind FROM conversations WHERE id = ?1) = 'group'
                AND user_id = (SELECT user_id FROM members WHERE conversation_id = ?1
                    ORDER BY role = 'admin' DESC, joined_at, user_id LIMIT 1)
            """,
            conversationID.rawValue)
        return true
    }

    /// Writes a membership notice (when the change has one) into the conversation and its
    /// event, at `position`, for every member. With `tellingOutsider`, `member` (who is not
    /// a member before or after, e.g. someone banned or invited) gets the event too, in
    /// their own feed.
    func announce(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, member: UserID,
        change: MembershipChange, at now: Timestamp, position: Int64? = nil, tellingOutsider: Bool = false
    ) throws {
        let connection = context.connection
        guard let user = try connection.first(
            "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", member.rawValue, as: { try Self.userRecord($0).user })
        else { throw StoreError.notFound("no account \(member)") }
        let byName = try change.by.flatMap { try username($0, connection) }
        let notice = try change.notice.map { text in
            try insertMessage(
                context,
                NewMessage(
                    conversationID: conversationID, senderID: change.by ?? member, type: .system, text: text,
                    requireMembership: false),
                at: now
            ).message
        }
        let payload = EventPayload(
            user: user, by: byName, reason: change.reason, until: change.until, role: change.role, via: change.via)
        try appendConversationEvent(
            context, type: change.event, conversationID: conversationID, messageID: notice?.id, payload: payload,
            at: now, position: position)
        if tellingOutsider, try change.by.map({ try Self.takesEvents(member, from: $0, connection) }) ?? true {
            try appendUserEvent(
                context, type: change.event, users: [member], conversationID: conversationID, payload: payload, at: now)
        }
    }

    public func conversations(for userID: UserID) async throws -> [Conversation] {
        try await database.read { connection in
            var rows: [(Conversation, otherID: Int64?)] = []
            try connection.query(
                """
                SELECT c.id, c.kind, c.name, c.title, c.logo_url, c.updated_at, mb.last_read_seq,
                    \(Self.unreadSQL),
                    \(Self.messageColumns)
                FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                LEFT JOIN messages m ON m.id = c.last_message_id AND (c.kind != 'room' OR m.seq > mb.joined_seq)
                LEFT JOIN users su ON su.id = m.sender_id
                WHERE mb.user_id = ? AND (c.kind != 'direct' OR c.last_seq > 0)
                """,
                [userID.rawValue]
            ) { row in
                let kind = ConversationKind(rawValue: row.text(1)) ?? .group
                let name = row.text(2)
                var otherID: Int64?
                if kind == .direct {
                    let ids = name.split(separator: ":").compactMap { Int64($0) }
                    otherID = ids.first { $0 != userID.rawValue } ?? userID.rawValue
                }
                let title = row.text(3)
                let conversation = Conversation(
                    id: ConversationID(rawValue: row.int(0)), kind: kind,
                    address: ConversationAddress(kind: kind, name: name), displayName: title.isEmpty ? name : title,
                    avatarURL: row.text(4), lastMessage: try Self.message(row, at: 8), unread: Self.unread(row.int(7)),
                    lastReadSeq: row.int(6), updatedAt: Timestamp(milliseconds: row.int(5)))
                rows.append((conversation, otherID))
            }
            var result: [Conversation] = []
            result.reserveCapacity(rows.count)
            for (conversation, otherID) in rows {
                var conversation = conversation
                if let otherID,
                    let other = try connection.first(
                        "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", otherID, as: { try Self.userRecord($0).user })
                {
                    conversation.address = .user(other.username)
                    conversation.displayName = other.nickname
                    conversation.avatarURL = other.avatarURL
                }
                result.append(conversation)
            }
            result.sort(by: Conversation.listedBefore)
            return result
        }
    }
}
