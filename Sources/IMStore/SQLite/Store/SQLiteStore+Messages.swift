import Foundation
import IMProtocol

extension SQLiteStore: MessageStore {
    public func appendMessage(_ new: NewMessage) async throws -> (message: Message, duplicate: Bool) {
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            if let clientID = new.clientMessageID,
                let existing = try connection.first(
                    "SELECT \(Self.messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id WHERE m.sender_id = ? AND m.client_msg_id = ?",
                    new.senderID.rawValue, clientID, as: { try Self.message($0) }),
                let existing
            {
                return (existing, true)
            }
            // Who the message reaches and what it is appended to, as the writer knows
            // them (`RosterCache`): it also says whether the sender may send.
            let roster = try rosters.roster(new.conversationID, connection)
            let head = roster.head
            if new.requireMembership {
                guard let sender = roster.member(new.senderID) else { throw StoreError.notMember }
                if let refusal = sender.postingRefusal(at: now, slowMode: head.kind == .group ? head.slowMode : 0) {
                    throw refusal
                }
                if head.kind == .direct && roster.blocked.contains(new.senderID) { throw StoreError.blocked }
            }
            if let quota = new.quota, new.type == .chat {
                try chargeQuota(new.senderID, bytes: MessageQuota.cost(of: new.text), quota, at: now, connection)
            }
            if let replyTo = new.replyTo {
                let home = try connection.scalar("SELECT conversation_id FROM messages WHERE id = ?", replyTo.rawValue)
                guard home == new.conversationID.rawValue else {
                    throw StoreError.invalidReference("message \(replyTo) is not in this conversation")
                }
            }
            let position = positions.issue()
            let (message, conversation) = try insertMessage(context, new, at: now, head: head, position: position)
            if new.type == .chat {
                try connection.execute(
                    "UPDATE members SET last_read_seq = ?, last_posted_at = ? WHERE conversation_id = ? AND user_id = ?",
                    message.seq, now.milliseconds, new.conversationID.rawValue, new.senderID.rawValue)
            }
            try appendConversationEvent(
                context, type: .message, conversationID: new.conversationID, messageID: message.id, at: now,
                position: position, recipients: roster.users, message: (message, conversation.kind, conversation.name),
                addresses: roster.addresses)
            return (message, false)
        }
    }

    /// Counts `bytes` against the account's `quota` for today (writer thread, in the
    /// job's transaction); `.quotaExceeded` writes nothing.
    func chargeQuota(_ user: UserID, bytes: Int, _ quota: MessageQuota, at now: Timestamp, _ connection: SQLiteConnection)
        throws
    {
        let (id, day, added, limit) = quota.chargeArguments(user, bytes: bytes, at: now)
        guard try connection.execute(Self.chargeSQL, id, day, added, limit) == 1 else { throw quota.refusal(at: now) }
    }

    private static let chargeSQL = MessageQuota.chargeSQL { "?\($0)" }

    /// What a message is appended to: the conversation's last number, kind, name and slow
    /// mode, read once per message.
    struct ConversationHead: Equatable {
        var lastSeq: Int64
        var kind: ConversationKind
        var name: String
        var slowMode: Int
    }

    func conversationHead(_ conversationID: ConversationID, _ connection: SQLiteConnection) throws
        -> ConversationHead
    {
        guard let head = try connection.first(
            "SELECT last_seq, kind, name, slow_mode FROM conversations WHERE id = ?", conversationID.rawValue,
            as: { ConversationHead(lastSeq: $0.int(0), kind: ConversationKind(rawValue: $0.text(1)) ?? .group,
                                   name: $0.text(2), slowMode: Int($0.int(3))) })
        else { throw StoreError.notFound("no conversation \(conversationID)") }
        return head
    }

    /// Throws why `sender` may not post in the conversation now: muted, a restricted
    /// newcomer, slowed down in a group (when `slowed`), or blocked by the
    /// other side of a one-to-one conversation.
    func checkPosting(
        _ sender: MemberState, in conversationID: ConversationID, at now: Timestamp, slowed: Bool = true,
        _ connection: SQLiteConnection
    ) throws {
        try checkPosting(sender, in: conversationID, try conversationHead(conversationID, connection), at: now,
                         slowed: slowed, connection)
    }

    private func checkPosting(
        _ sender: MemberState, in conversationID: ConversationID, _ head: ConversationHead, at now: Timestamp,
        slowed: Bool = true, _ connection: SQLiteConnection
    ) throws {
        let (kind, slowMode) = (head.kind, head.slowMode)
        if let refusal = sender.postingRefusal(at: now, slowMode: kind == .group && slowed ? slowMode : 0) {
            throw refusal
        }
        if kind == .direct,
            try connection.scalar(
                """
                SELECT 1 FROM blocks b JOIN members m ON m.user_id = b.user_id
                WHERE m.conversation_id = ? AND b.blocked_id = ? AND b.user_id != b.blocked_id
                """,
                conversationID.rawValue, sender.user.rawValue) != nil
        {
            throw StoreError.blocked
        }
    }

    /// Appends a message to its conversation (next `seq`, last message, time); returns it
    /// with the conversation's kind and name. The caller puts it into feeds. `head` is the
    /// conversation's row when the caller read it already (in the same transaction);
    /// `position` is that of the message's own event (`.message`), which the caller
    /// appends at it, or nil when another event carries the message.
    @discardableResult
    func insertMessage(
        _ context: SQLiteDatabase.WriteContext, _ new: NewMessage, at now: Timestamp, head: ConversationHead? = nil,
        position: Int64?
    ) throws -> (message: Message, conversation: (kind: ConversationKind, name: String)) {
        let connection = context.connection
        // The conversation's row is read once, then the message takes its next number and
        // the row records it as its last. (Not `INSERT … SELECT … RETURNING`: SQLite
        // buffers RETURNING rows in a temporary table it makes for each statement, which
        // cost 9-20 µs of the writer's time per send: BENCHMARKS.md, "Event feed".)
        let head = try head ?? conversationHead(new.conversationID, connection)
        let (lastSeq, kind, name) = (head.lastSeq, head.kind, head.name)
        let seq = lastSeq + 1
        try connection.execute(
            """
            INSERT INTO messages (conversation_id, seq, type, sender_id, text, client_msg_id, reply_to, created_at, position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            new.conversationID.rawValue, seq, new.type.rawValue, new.senderID.rawValue, new.text, new.clientMessageID,
            new.replyTo?.rawValue, now.milliseconds, position)
        let id = MessageID(rawValue: connection.lastInsertRowID)
        try connection.execute(
            "UPDATE conversations SET last_seq = ?, last_message_id = ?, updated_at = ? WHERE id = ?",
            seq, id.rawValue, now.milliseconds, new.conversationID.rawValue)
        let message = Message(
            id: id, conversationID: new.conversationID, seq: seq, type: new.type,
            sender: try username(new.senderID, connection) ?? "", senderID: new.senderID, text: new.text,
            clientMessageID: new.clientMessageID, replyTo: new.replyTo, createdAt: now)
        return (message, (kind, name))
    }
}
