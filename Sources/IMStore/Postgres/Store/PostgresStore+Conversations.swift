import Foundation
import IMProtocol

/// How the PostgreSQL engine adds and removes members (the batch's announcing event
/// starts or ends their reading) and its sessions list (the rest of `ConversationStore`:
/// `Body/Conversations.swift`).
extension PostgresStore {
    func addMember(
        _ context: PostgresWriteContext, _ conversationID: ConversationID, _ userID: UserID,
        role: MemberRole, restricted: Bool, change: MembershipChange, at now: Timestamp
    ) throws -> Bool {
        let connection = context.connection
        _ = try Self.record(conversationID, connection, forUpdate: true)
        try Self.requireUser(userID, connection)
        guard try Self.insertMember(connection, conversationID, userID, role: role, restricted: restricted, at: now, position: nil)
        else { return false }
        try connection.execute(
            "UPDATE conversations SET member_count = member_count + 1 WHERE id = $1", conversationID.rawValue)
        // The member reads the conversation from the event that announces them on.
        let event = try announceEvent(context, conversationID, member: userID, change: change, at: now)
        context.batch.events[event].joins = [userID]
        return true
    }

    /// Removes a member inside a write job; see `removeMember(_:_:change:)`.
    func removeMember(
        _ context: PostgresWriteContext, _ conversationID: ConversationID, _ userID: UserID,
        change: MembershipChange, at now: Timestamp
    ) throws -> Bool {
        let connection = context.connection
        _ = try Self.record(conversationID, connection, forUpdate: true)
        guard try connection.first(
            "SELECT 1 FROM members WHERE conversation_id = $1 AND user_id = $2", conversationID.rawValue,
            userID.rawValue, as: { _ in true }) != nil
        else { return false }
        // Everyone is told, the member included, who reads up to this event and no further.
        let event = try announceEvent(context, conversationID, member: userID, change: change, at: now)
        if let leave = try Self.deleteMember(context, conversationID, userID) {
            context.batch.events[event].leaves = [leave]
        }
        try connection.execute(
            "UPDATE conversations SET member_count = member_count - 1 WHERE id = $1", conversationID.rawValue)
        try Self.keepAnOwner(conversationID, connection)
        return true
    }

    /// Writes a membership change's notice and event for every member
    /// (`announcement`); returns the event's index in the batch, for the caller to
    /// complete. With `tellingOutsider`, `member` gets the event in their own feed too.
    func announceEvent(
        _ context: PostgresWriteContext, _ conversationID: ConversationID, member: UserID,
        change: MembershipChange, at now: Timestamp, tellingOutsider: Bool = false
    ) throws -> Int {
        let (notice, payload) = try announcement(context, conversationID, member: member, change: change, at: now)
        let event = try Self.appendConversationEvent(
            context, type: change.event, conversationID: conversationID, messageID: notice, payload: payload, at: now)
        if tellingOutsider {
            try tellOutsider(context, conversationID, member: member, change: change, payload: payload, at: now)
        }
        return event
    }

    public func conversations(for userID: UserID) async throws -> [Conversation] {
        try await read { connection in
            var result = try connection.rows(
                """
                SELECT c.id, c.kind, c.name, c.title, c.logo_url, c.updated_at, mb.last_read_seq,
                    \(Self.unreadSQL),
                    o.username, o.nickname, o.avatar_url,
                    \(Self.messageColumns)
                FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                LEFT JOIN users o ON o.id = CASE WHEN c.kind != 'direct' THEN NULL
                    WHEN split_part(c.name, ':', 1)::int8 = $1 THEN split_part(c.name, ':', 2)::int8
                    ELSE split_part(c.name, ':', 1)::int8 END
                LEFT JOIN messages m ON m.id = c.last_message_id AND (c.kind != 'room' OR m.seq > mb.joined_seq)
                LEFT JOIN users su ON su.id = m.sender_id
                WHERE mb.user_id = $1 AND (c.kind != 'direct' OR c.last_seq > 0)
                """,
                userID.rawValue,
                as: { row in
                    let kind = ConversationKind(rawValue: try row.text(1)) ?? .group
                    let name = try row.text(2)
                    let title = try row.text(3)
                    var conversation = Conversation(
                        id: ConversationID(rawValue: try row.int(0)), kind: kind,
                        address: ConversationAddress(kind: kind, name: name), displayName: title.isEmpty ? name : title,
                        avatarURL: try row.text(4), lastMessage: try Self.message(row, at: 11),
                        unread: Self.unread(try row.int(7)), lastReadSeq: try row.int(6),
                        updatedAt: Timestamp(milliseconds: try row.int(5)))
                    if kind == .direct, let other = try row.optionalText(8) {
                        conversation.address = .user(other)
                        conversation.displayName = try row.text(9)
                        conversation.avatarURL = try row.text(10)
                    }
                    return conversation
                })
            result.sort(by: Conversation.listedBefore)
            return result
        }
    }
}
