import IMProtocol

/// Editing and deleting sent messages. The row changes in place, so every later read
/// shows the change: history, the sessions list's last message, and every feed event
/// that carries the message (they join its current row; `SQLiteStore+EventStore.swift`),
/// except for those who left before an edit, who read the text they knew
/// (`FeedVisibility`: an edit keeps the text it replaces while someone who left may read
/// it), and someone in a room who came after the message, who hears of neither.
extension SQLiteStore: MessageEditStore {
    public func editMessage(_ edit: MessageEdit) async throws -> Message {
        try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            guard let editor = try memberState(edit.conversationID, edit.editor, connection) else {
                try requireConversation(edit.conversationID, connection)
                throw StoreError.notMember
            }
            let stored = try storedMessage(edit.messageID, in: edit.conversationID, connection)
            guard stored.type == .chat, stored.senderID == edit.editor else {
                throw StoreError.refused(reason: "not_sender", message: "only its sender may edit a message")
            }
            guard stored.deletedAt == nil else {
                throw StoreError.invalidState("message \(stored.id) was deleted: there is nothing to edit")
            }
            guard stored.text != edit.text else { return stored }
            // An edit is a post: someone muted, slowed down, or blocked by the other side
            // cannot say something new through it, and it starts slow mode's wait again.
            try checkPosting(editor, in: edit.conversationID, at: now, slowed: true, connection)
            try edit.quota.map { try chargeQuota(edit.editor, bytes: MessageQuota.cost(of: edit.text), $0, at: now, connection) }
            let position = positions.issue()
            if try connection.scalar(
                "SELECT \(FeedVisibility.keepsVersionsSQL(conversation: "?"))", edit.conversationID.rawValue) == 1
            {
                try connection.execute(
                    "INSERT INTO message_versions (message_id, until_position, text, edited_at) VALUES (?, ?, ?, ?)",
                    stored.id.rawValue, position, stored.text, stored.editedAt?.milliseconds)
            }
            try connection.execute(
                "UPDATE messages SET text = ?, edited_at = ? WHERE id = ?", edit.text, now.milliseconds,
                edit.messageID.rawValue)
            try connection.execute(
                "UPDATE members SET last_posted_at = ? WHERE conversation_id = ? AND user_id = ?", now.milliseconds,
                edit.conversationID.rawValue, edit.editor.rawValue)
            try appendConversationEvent(
                context, type: .messageEdited, conversationID: edit.conversationID, messageID: edit.messageID, at: now,
                position: position, recipients: try recipients(ofChangeTo: stored, connection))
            return try storedMessage(edit.messageID, in: edit.conversationID, connection)
        }
    }

    public func deleteMessage(_ deletion: MessageDeletion) async throws -> Message {
        try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            let stored = try storedMessage(deletion.messageID, in: deletion.conversationID, connection)
            guard stored.type == .chat else {
                throw StoreError.invalidState("message \(stored.id) is a system notice: notices cannot be deleted")
            }
            if stored.deletedAt != nil { return stored }
            let byOther = stored.senderID != deletion.by.id
            if byOther {
                let kind = try record(deletion.conversationID, connection).kind
                try GroupRules.authorizeDeletion(
                    in: kind,
                    actor: .init(
                        role: try memberState(deletion.conversationID, deletion.by.id, connection)?.role,
                        isServerAdministrator: deletion.by.isServerAdministrator),
                    sender: try memberState(deletion.conversationID, stored.senderID, connection)?.role)
            }
            try connection.execute(
                "UPDATE messages SET text = '', deleted_at = ? WHERE id = ?", now.milliseconds,
                deletion.messageID.rawValue)
            // The text is gone for everyone, those who left included.
            try connection.execute("DELETE FROM message_versions WHERE message_id = ?", deletion.messageID.rawValue)
            try appendConversationEvent(
                context, type: .messageDeleted, conversationID: deletion.conversationID,
                messageID: deletion.messageID, payload: EventPayload(by: try username(deletion.by.id, connection)),
                at: now, recipients: try recipients(ofChangeTo: stored, connection))
            if byOther {
                let (notice, conversation) = try insertMessage(
                    context,
                    NewMessage(
                        conversationID: deletion.conversationID, senderID: deletion.by.id, type: .system,
                        text: deletion.notice, requireMembership: false),
                    at: now)
                try appendConversationEvent(
                    context, type: .message, conversationID: deletion.conversationID, messageID: notice.id, at: now,
                    message: (notice, conversation.kind, conversation.name))
            }
            return try storedMessage(deletion.messageID, in: deletion.conversationID, connection)
        }
    }

    /// Who hears of an edit or deletion of `message`: the members, less those in a room
    /// who came after it (nil: the members, as the roster has them).
    private func recipients(ofChangeTo message: Message, _ connection: SQLiteConnection) throws -> [UserID]? {
        guard try rosters.roster(message.conversationID, connection).head.kind == .room else { return nil }
        return try connection.rows(
            """
            SELECT user_id FROM members WHERE conversation_id = ?1
                AND \(FeedVisibility.sql(kind: "'room'", messageSeq: "?2", joinedSeq: "joined_seq"))
            ORDER BY user_id
            """,
            message.conversationID.rawValue, message.seq, as: { UserID(rawValue: $0.int(0)) })
    }

    /// A message of `conversationID` as stored now; `.notFound` when it is not one of its
    /// messages (an id from another conversation looks like no message at all).
    private func storedMessage(_ id: MessageID, in conversationID: ConversationID, _ connection: SQLiteConnection)
        throws -> Message
    {
        guard let found = try connection.first(
            "SELECT \(Self.messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id WHERE m.id = ? AND m.conversation_id = ?",
            id.rawValue, conversationID.rawValue, as: { Self.message($0) }),
            let message = found
        else { throw StoreError.notFound("no message \(id) in this conversation") }
        return message
    }
}
