import IMProtocol

/// The PostgreSQL engine's answers to the hooks of the shared body (`StoreEngine`): its
/// helpers are static (they keep no cache: another node may change any row).
extension PostgresStore {
    func memberState(_ conversationID: ConversationID, _ user: UserID, _ connection: PostgresConnection) throws
        -> MemberState?
    {
        try Self.memberState(conversationID, user, connection)
    }

    func username(_ id: UserID, _ connection: PostgresConnection) throws -> String? {
        try Self.username(id, connection)
    }

    func announce(
        _ context: PostgresWriteContext, _ conversationID: ConversationID, member: UserID, change: MembershipChange,
        at now: Timestamp, tellingOutsider: Bool
    ) throws {
        _ = try announceEvent(context, conversationID, member: member, change: change, at: now, tellingOutsider: tellingOutsider)
    }
}

extension PostgresStore {
    func checkPosting(
        _ sender: MemberState, in conversationID: ConversationID, at now: Timestamp, slowed: Bool,
        _ connection: PostgresConnection
    ) throws {
        try Self.checkPosting(sender, in: conversationID, at: now, slowed: slowed, connection)
    }

    func chargeQuota(_ user: UserID, bytes: Int, _ quota: MessageQuota, at now: Timestamp, _ connection: PostgresConnection)
        throws
    {
        try Self.chargeQuota(user, bytes: bytes, quota, at: now, connection)
    }

    func post(_ context: PostgresWriteContext, _ new: NewMessage, at now: Timestamp) throws -> Message {
        let (message, conversation, sides) = try Self.insertMessage(context, new, at: now)
        try Self.appendConversationEvent(
            context, type: .message, conversationID: new.conversationID, messageID: message.id, at: now,
            message: (message, conversation.kind, conversation.name, sides))
        return message
    }

    /// The version an edit replaced is stored when the batch commits, with the event's
    /// position (`PostgresStore+Batch.swift`).
    func appendEvent(
        _ context: PostgresWriteContext, _ type: EventType, in conversationID: ConversationID, messageID: MessageID?,
        payload: EventPayload?, recipients: [UserID]?, replacing: MessageVersion?, at now: Timestamp
    ) throws {
        let event = try Self.appendConversationEvent(
            context, type: type, conversationID: conversationID, messageID: messageID, payload: payload, at: now,
            recipients: recipients)
        context.batch.events[event].replaced = replacing
    }

    /// An edit earlier in this batch has not stored the text it replaced yet: it is
    /// dropped from the batch too.
    func forgetVersions(of message: MessageID, _ context: PostgresWriteContext) throws {
        try context.connection.execute("DELETE FROM message_versions WHERE message_id = $1", message.rawValue)
        for index in context.batch.events.indices where context.batch.events[index].replaced?.message == message {
            context.batch.events[index].replaced = nil
        }
    }
}

extension PostgresStore {
    func logRevocation(_ revocation: LoginRevocation, _ context: PostgresWriteContext) {
        context.batch.revocations.append(revocation)
    }

    /// No cache of names: another node may rename an account at any time.
    func usernameChanged(_ id: UserID, to name: String) {}
}

extension PostgresStore {
    func appendMessage(_ context: PostgresWriteContext, _ new: NewMessage, at now: Timestamp) throws -> Message {
        try Self.insertMessage(context, new, at: now).message
    }
}

extension PostgresStore {
    /// The revocation log only has to reach back as far as the logins nodes cache.
    func pruneRevocations(before: Timestamp, _ context: PostgresWriteContext) throws {
        try context.connection.execute("DELETE FROM revocations WHERE created_at < $1", before.milliseconds)
    }

    func appendUserEvent(
        _ context: PostgresWriteContext, type: EventType, users: [UserID], conversationID: ConversationID?,
        payload: EventPayload, at: Timestamp
    ) throws {
        try Self.appendUserEvent(
            context, type: type, users: users, conversationID: conversationID, payload: payload, at: at)
    }
}

extension PostgresStore {
    /// Nobody sees what this batch writes before it commits, so its events all come after
    /// the clock as it is now.
    func nextFeedPosition(_ context: PostgresWriteContext) throws -> Int64 {
        (try context.connection.first("SELECT position FROM feed_clock", as: { try $0.int(0) }) ?? 0) + 1
    }
}
