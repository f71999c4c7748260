import IMProtocol

/// The SQLite engine's answers to the hooks of the shared body (`StoreEngine`).
extension SQLiteStore {
    func announce(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, member: UserID,
        change: MembershipChange, at now: Timestamp, tellingOutsider: Bool
    ) throws {
        try announce(context, conversationID, member: member, change: change, at: now, position: nil,
                     tellingOutsider: tellingOutsider)
    }
}

extension SQLiteStore {
    func post(_ context: SQLiteDatabase.WriteContext, _ new: NewMessage, at now: Timestamp) throws -> Message {
        let position = positions.issue()
        let (message, conversation) = try insertMessage(context, new, at: now, position: position)
        try appendConversationEvent(
            context, type: .message, conversationID: new.conversationID, messageID: message.id, at: now,
            position: position, message: (message, conversation.kind, conversation.name))
        return message
    }

    /// The version an edit replaced is stored at once, as of the edit event's position.
    func appendEvent(
        _ context: SQLiteDatabase.WriteContext, _ type: EventType, in conversationID: ConversationID,
        messageID: MessageID?, payload: EventPayload?, recipients: [UserID]?, replacing: MessageVersion?,
        at now: Timestamp
    ) throws {
        let position = positions.issue()
        if let replacing {
            try context.connection.execute(
                "INSERT INTO message_versions (message_id, until_position, text, edited_at) VALUES (?, ?, ?, ?)",
                replacing.message.rawValue, position, replacing.text, replacing.editedAt)
        }
        try appendConversationEvent(
            context, type: type, conversationID: conversationID, messageID: messageID, payload: payload, at: now,
            position: position, recipients: recipients)
    }

    func forgetVersions(of message: MessageID, _ context: SQLiteDatabase.WriteContext) throws {
        try context.connection.execute("DELETE FROM message_versions WHERE message_id = ?", message.rawValue)
    }
}

extension SQLiteStore {
    /// One process holds the database: nobody else caches its logins.
    func logRevocation(_ revocation: LoginRevocation, _ context: SQLiteDatabase.WriteContext) {}

    func usernameChanged(_ id: UserID, to name: String) { usernames.withLock { $0[id] = name } }
}

extension SQLiteStore {
    func appendMessage(_ context: SQLiteDatabase.WriteContext, _ new: NewMessage, at now: Timestamp) throws -> Message {
        try insertMessage(context, new, at: now, position: nil).message
    }
}

extension SQLiteStore {
    func pruneRevocations(before: Timestamp, _ context: SQLiteDatabase.WriteContext) {}
}

extension SQLiteStore {
    /// Only the writer thread advances the counter.
    func nextFeedPosition(_ context: SQLiteDatabase.WriteContext) -> Int64 { positions.next.load(ordering: .relaxed) }
}
