import IMProtocol

/// Editing and deleting sent messages. The row changes in place, so every later read (on
/// any node) shows the change: history, the sessions list's last message, and every feed
/// event that carries the message (they join its current row), except as
/// `FeedVisibility` says: those who left before an edit read the text they knew (an edit
/// keeps the text it replaces while someone who left may read it), and someone in a room
/// who came after the message hears of neither.
extension StoreEngine {
    public func editMessage(_ edit: MessageEdit) async throws -> Message {
        try await write(lockOrder: edit.conversationID) { [self] context in
            let now = clock()
            let connection = context.connection
            let conversation = try Self.record(edit.conversationID, connection, forUpdate: true)
            guard let editor = try memberState(edit.conversationID, edit.editor, connection) else {
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
            try checkPosting(editor, in: edit.conversationID, at: now, slowed: true, connection)
            if let quota = edit.quota {
                try chargeQuota(edit.editor, bytes: MessageQuota.cost(of: edit.text), quota, at: now, connection)
            }
            let keepsVersion = try connection.first(
                "SELECT \(FeedVisibility.keepsVersionsSQL(conversation: "?1"))", edit.conversationID.rawValue,
                as: { try $0.bool(0) }) ?? false
            try connection.execute(
                "UPDATE messages SET text = ?1, edited_at = ?2 WHERE id = ?3", edit.text, now.milliseconds,
                edit.messageID.rawValue)
            try connection.execute(
                "UPDATE members SET last_posted_at = ?1 WHERE conversation_id = ?2 AND user_id = ?3", now.milliseconds,
                edit.conversationID.rawValue, edit.editor.rawValue)
            try appendEvent(
                context, .messageEdited, in: edit.conversationID, messageID: edit.messageID, payload: nil,
                recipients: try Self.recipients(ofChangeTo: stored, kind: conversation.kind, connection),
                replacing: keepsVersion
                    ? MessageVersion(message: stored.id, text: stored.text, editedAt: stored.editedAt?.milliseconds) : nil,
                at: now)
            return try Self.storedMessage(edit.messageID, in: edit.conversationID, connection)
        }
    }

    public func deleteMessage(_ deletion: MessageDeletion) async throws -> Message {
        try await write(lockOrder: deletion.conversationID) { [self] context in
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
                try GroupRules.authorizeDeletion(
                    in: conversation.kind,
                    actor: .init(
                        role: try memberState(deletion.conversationID, deletion.by.id, connection)?.role,
                        isServerAdministrator: deletion.by.isServerAdministrator),
                    sender: try memberState(deletion.conversationID, stored.senderID, connection)?.role)
            }
            try connection.execute(
                "UPDATE messages SET text = '', deleted_at = ?1 WHERE id = ?2", now.milliseconds,
                deletion.messageID.rawValue)
            // The text is gone for everyone, those who left included.
            try forgetVersions(of: deletion.messageID, context)
            try appendEvent(
                context, .messageDeleted, in: deletion.conversationID, messageID: deletion.messageID,
                payload: EventPayload(by: try username(deletion.by.id, connection)),
                recipients: try Self.recipients(ofChangeTo: stored, kind: conversation.kind, connection), replacing: nil,
                at: now)
            if byOther {
                _ = try post(
                    context,
                    NewMessage(
                        conversationID: deletion.conversationID, senderID: deletion.by.id, type: .system,
                        text: deletion.notice, requireMembership: false),
                    at: now)
            }
            return try Self.storedMessage(deletion.messageID, in: deletion.conversationID, connection)
        }
    }

    /// Who hears of an edit or deletion of `message`: the members, less those in a room
    /// who came after it (nil: the members).
    private static func recipients(ofChangeTo message: Message, kind: ConversationKind, _ connection: Connection)
        throws -> [UserID]?
    {
        guard kind == .room else { return nil }
        return try connection.rows(
            """
            SELECT user_id FROM members WHERE conversation_id = ?1
                AND \(FeedVisibility.sql(kind: "'room'", messageSeq: "CAST(?2 AS BIGINT)", joinedSeq: "joined_seq"))
            ORDER BY user_id
            """,
            message.conversationID.rawValue, message.seq, as: { UserID(rawValue: try $0.int(0)) })
    }

    /// A message of `conversationID` as stored now; `.notFound` when it is not one of its
    /// messages (an id from another conversation looks like no message at all).
    private static func storedMessage(_ id: MessageID, in conversationID: ConversationID, _ connection: Connection)
        throws -> Message
    {
        guard let found = try connection.first(
            """
            SELECT \(messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id
            WHERE m.id = ?1 AND m.conversation_id = ?2
            """,
            id.rawValue, conversationID.rawValue, as: { try message($0) }),
            let message = found
        else { throw StoreError.notFound("no message \(id) in this conversation") }
        return message
    }
}

/// The text and edit time a message showed before an edit, kept while someone who left
/// may read it (`FeedVisibility`).
struct MessageVersion {
    var message: MessageID
    var text: String
    var editedAt: Int64?
}
