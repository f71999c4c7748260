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
        try Self.keepAnOwner(conversationID, connection)
        return true
    }

    /// Writes a membership change's notice and event (`announcement`), at `position`, for
    /// every member. With `tellingOutsider`, `member` gets the event in their own feed too.
    func announce(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, member: UserID,
        change: MembershipChange, at now: Timestamp, position: Int64? = nil, tellingOutsider: Bool = false
    ) throws {
        let (notice, payload) = try announcement(context, conversationID, member: member, change: change, at: now)
        try appendConversationEvent(
            context, type: change.event, conversationID: conversationID, messageID: notice, payload: payload, at: now,
            position: position)
        if tellingOutsider {
            try tellOutsider(context, conversationID, member: member, change: change, payload: payload, at: now)
        }
    }

    public func conversations(for userID: UserID) async throws -> [Conversation] {
        try await database.read { connection in
            // A one-to-one conversation is named by its two ids (`<a>:<b>`); the other one's
            // name and profile come in the same statement, as on PostgreSQL.
            var result = try connection.rows(
                """
                SELECT c.id, c.kind, c.name, c.title, c.logo_url, c.updated_at, mb.last_read_seq,
                    \(Self.unreadSQL),
                    o.username, o.nickname, o.avatar_url,
                    \(Self.messageColumns)
                FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                LEFT JOIN users o ON c.kind = 'direct' AND o.id = CASE
                    WHEN CAST(substr(c.name, 1, instr(c.name, ':') - 1) AS INTEGER) = ?1
                        THEN CAST(substr(c.name, instr(c.name, ':') + 1) AS INTEGER)
                    ELSE CAST(substr(c.name, 1, instr(c.name, ':') - 1) AS INTEGER) END
                LEFT JOIN messages m ON m.id = c.last_message_id AND (c.kind != 'room' OR m.seq > mb.joined_seq)
                LEFT JOIN users su ON su.id = m.sender_id
                WHERE mb.user_id = ?1 AND (c.kind != 'direct' OR c.last_seq > 0)
                """,
                userID.rawValue,
                as: { row in
                    let kind = ConversationKind(rawValue: row.text(1)) ?? .group
                    let name = row.text(2)
                    let title = row.text(3)
                    var conversation = Conversation(
                        id: ConversationID(rawValue: row.int(0)), kind: kind,
                        address: ConversationAddress(kind: kind, name: name), displayName: title.isEmpty ? name : title,
                        avatarURL: row.text(4), lastMessage: try Self.message(row, at: 11), unread: Self.unread(row.int(7)),
                        lastReadSeq: row.int(6), updatedAt: Timestamp(milliseconds: row.int(5)))
                    if kind == .direct, let other = row.optionalText(8) {
                        conversation.address = .user(other)
                        conversation.displayName = row.text(9)
                        conversation.avatarURL = row.text(10)
                    }
                    return conversation
                })
            result.sort(by: Conversation.listedBefore)
            return result
        }
    }
}
