import IMProtocol

/// Editing and deleting sent messages (as `SQLiteStore+MessageEdits.swift`). The row
/// changes in place, so every later read on any node shows the change: history, the
/// sessions list's last message, and every feed event that carries the message.
extension PostgresStore: MessageEditStore {
    public func editMessage(_ edit: MessageEdit) async throws -> Message {
        try await write(lockOrder: edit.conversationID) { [clock] context in
            let now = clock()
            let connection = context.connection
            _ = try Self.record(edit.conversationID, connection, forUpdate: true)
            guard let editor = try Self.memberState(edit.conversationID, edit.editor, connection) else {
                throw StoreError.notMember
            }
            let stored = try Self.storedMessage(edit.messageID, in: edit.conversationID, connection)
            guard stored.type == .chat, stored.senderID == edit.editor else {
                throw StoreError.refused(reason: "not_sender", message: "only its sender may edit a message")
            }
            guard stored.deletedAt == nil else {
                throw StoreError.invalidState("message \(stored.id) was deleted: there is nothing to edit")
            }
            guard stored.text != edit.text else { return stored }
            // An edit is a post: someone muted, slowed down, or blocked by the other side
            // cannot say something new through it, and it starts slow mode's wait again.
            try Self.checkPosting(editor, in: edit.conversationID, at: now, slowed: true, connection)
            try connection.execute(
                "UPDATE messages SET text = $1, edited_at = $2 WHERE id = $3", edit.text, now.milliseconds,
                edit.messageID.rawValue)
            try connection.execute(
                "UPDATE members SET last_posted_at = $1 WHERE conversation_id = $2 AND user_id = $3", now.milliseconds,
                edit.conversationID.rawValue, edit.editor.rawValue)
            try Self.appendConversationEvent(
                context, type: .messageEdited, conversationID: edit.conversationID, messageID: edit.messageID, at: now)
            return try Self.storedMessage(edit.messageID, in: edit.conversationID, connection)
        }
    }

    public func deleteMessage(_ deletion: MessageDeletion) async throws -> Message {
        try await write(lockOrder: deletion.conversationID) { [clock] context in
            let now = clock()
            let connection = context.connection
            let conversation = try Self.record(deletion.conversationID, connection, forUpdate: true)
            let stored = try Self.storedMessage(deletion.messageID, in: deletion.conversationID, connection)
            guard stored.type == .chat else {
                throw StoreError.invalidState("message \(stored.id) is a system notice: notices cannot be deleted")
            }
            if stored.deletedAt != nil { return stored }
            let byOther = stored.senderID != deletion.by.id
            if byOther {
                let kind = conversation.kind
                let role = try Self.memberState(deletion.conversationID, deletion.by.id, connection)?.role ?? .member
                guard kind == .group, deletion.by.isServerAdministrator || role >= .admin else {
                    throw StoreError.refused(
                        reason: "not_sender",
                        message: kind == .group
                            ? "only its sender or a group admin may delete a message"
                            : "only its sender may delete a message")
                }
            }
            try connection.execute(
                "UPDATE messages SET text = '', deleted_at = $1 WHERE id = $2", now.milliseconds,
                deletion.messageID.rawValue)
            try Self.appendConversationEvent(
                context, type: .messageDeleted, conversationID: deletion.conversationID,
                messageID: deletion.messageID, payload: EventPayload(by: try Self.username(deletion.by.id, connection)),
                at: now)
            if byOther {
                let (notice, conversation, sides) = try Self.insertMessage(
                    context,
                    NewMessage(
                        conversationID: deletion.conversationID, senderID: deletion.by.id, type: .system,
                        text: deletion.notice, requireMembership: false),
                    at: now)
                try Self.appendConversationEvent(
                    context, type: .message, conversationID: deletion.conversationID, messageID: notice.id, at: now,
                    message: (notice, conversation.kind, conversation.name, sides))
            }
            return try Self.storedMessage(deletion.messageID, in: deletion.conversationID, connection)
        }
    }

    /// A message of `conversationID` as stored now; `.notFound` when it is not one of its
    /// messages (an id from another conversation looks like no message at all).
    private static func storedMessage(
        _ id: MessageID, in conversationID: ConversationID, _ connection: PostgresConnection
    ) throws -> Message {
        guard let found = try connection.first(
            """
            SELECT \(messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id
            WHERE m.id = $1 AND m.conversation_id = $2
            """,
            id.rawValue, conversationID.rawValue, as: { try message($0) }),
            let message = found
        else { throw StoreError.notFound("no message \(id) in this conversation") }
        return message
    }
}
