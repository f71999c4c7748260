import IMProtocol

/// Notices: a reply only one member sees. A row of `notices` (its id, and the sender's
/// client id for repeats) and one `notice` event in the recipient's feed (`user_events`);
/// the row goes with its event when the feed is pruned (schema 9). Nobody's history,
/// unread count or last message holds it.
extension StoreEngine {
    public func sendNotice(_ new: NewNotice) async throws -> (notice: Notice, duplicate: Bool) {
        try await write(lockOrder: new.conversationID) { [self] context in
            let now = clock()
            let connection = context.connection
            if let existing = try connection.first(
                """
                SELECT \(Self.noticeColumns) FROM notices n JOIN users su ON su.id = n.sender_id
                WHERE n.sender_id = ?1 AND n.client_id = ?2
                """,
                new.senderID.rawValue, new.clientID, as: { try Self.notice($0) })
            {
                return (existing, true)
            }
            // The conversation's row is locked first, as a message's append locks it: the
            // members read next stay the members until the notice is in.
            _ = try Self.record(new.conversationID, connection, forUpdate: true)
            // The sender must be a member who may post now (muted, a restricted newcomer;
            // slow mode does not hold back a notice); the recipient a member who does not
            // block the sender (a notice is said to one person, so a block holds in every
            // kind of conversation).
            guard let sender = try memberState(new.conversationID, new.senderID, connection) else {
                throw StoreError.notMember
            }
            if let refusal = sender.postingRefusal(at: now) { throw refusal }
            guard try memberState(new.conversationID, new.recipientID, connection) != nil else {
                throw StoreError.refused(
                    reason: "recipient_not_member", message: "the recipient is not a member of this conversation")
            }
            if try connection.first(
                "SELECT 1 FROM blocks WHERE user_id = ?1 AND blocked_id = ?2 AND user_id <> blocked_id",
                new.recipientID.rawValue, new.senderID.rawValue, as: { _ in true }) ?? false
            {
                throw StoreError.refused(reason: "blocked", message: "the recipient does not take notices from you")
            }
            if let quota = new.quota {
                try chargeQuota(new.senderID, bytes: MessageQuota.cost(of: new.text), quota, at: now, connection)
            }
            if let replyTo = new.replyTo {
                let home = try connection.first(
                    "SELECT conversation_id FROM messages WHERE id = ?1", replyTo.rawValue, as: { try $0.int(0) })
                guard home == new.conversationID.rawValue else {
                    throw StoreError.invalidReference("message \(replyTo) is not in this conversation")
                }
            }
            let id: Int64
            do {
                id = try connection.first(
                    """
                    INSERT INTO notices (conversation_id, sender_id, user_id, client_id, text, reply_to, created_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id
                    """,
                    new.conversationID.rawValue, new.senderID.rawValue, new.recipientID.rawValue, new.clientID,
                    new.text, new.replyTo?.rawValue, now.milliseconds, as: { try $0.int(0) }) ?? 0
            } catch where Self.isUniqueViolation(error) {
                // The same client id sent through another node at the same time: run the
                // job again, and it finds the notice the other wrote.
                throw Self.runAgain
            }
            let notice = Notice(
                id: NoticeID(rawValue: id), conversationID: new.conversationID,
                sender: try username(new.senderID, connection) ?? "", senderID: new.senderID,
                recipientID: new.recipientID, text: new.text, clientID: new.clientID, replyTo: new.replyTo,
                createdAt: now)
            try appendUserEvent(
                context, type: .notice, users: [new.recipientID], conversationID: new.conversationID,
                payload: EventPayload(notice: notice), at: now)
            return (notice, false)
        }
    }

    /// A notice's columns: `notices` as `n` joined with its sender as `su`.
    static var noticeColumns: String {
        "n.id, n.conversation_id, su.username, n.sender_id, n.user_id, n.text, n.client_id, n.reply_to, n.created_at"
    }

    /// Maps `noticeColumns`.
    static func notice(_ row: Connection.Row) throws -> Notice {
        Notice(
            id: NoticeID(rawValue: try row.int(0)), conversationID: ConversationID(rawValue: try row.int(1)),
            sender: try row.text(2), senderID: UserID(rawValue: try row.int(3)),
            recipientID: UserID(rawValue: try row.int(4)), text: try row.text(5), clientID: try row.text(6),
            replyTo: try row.optionalInt(7).map { MessageID(rawValue: $0) }, createdAt: try row.time(8))
    }
}
