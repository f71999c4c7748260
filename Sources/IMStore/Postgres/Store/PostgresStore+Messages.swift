import Foundation
import IMProtocol

extension PostgresStore: MessageStore {
    public func appendMessage(_ new: NewMessage) async throws -> (message: Message, duplicate: Bool) {
        try await write(lockOrder: new.conversationID) { [clock] context in
            let now = clock()
            let connection = context.connection
            if let clientID = new.clientMessageID,
                let existing = try connection.first(
                    """
                    SELECT \(Self.messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id
                    WHERE m.sender_id = $1 AND m.client_msg_id = $2
                    """,
                    new.senderID.rawValue, clientID, as: { try Self.message($0) }),
                let existing
            {
                return (existing, true)
            }
            // The message takes its number first, which locks the conversation's row: the
            // members read next are the members at the message's position.
            let (message, conversation, sides): (Message, PostgresStore.InsertedInto, [String])
            do {
                (message, conversation, sides) = try Self.insertMessage(context, new, at: now)
            } catch let error as PostgresError where error.kind == .uniqueViolation && new.clientMessageID != nil {
                // The same client id sent through another node at the same time: run again,
                // and find the message it wrote.
                throw PostgresWriter.RunAgain()
            }
            // The members as they were before this message (each with whether they block the
            // sender), and the sender's read marker and last post moved to it, in one
            // statement (undone with the job when the sender may not send).
            var blockedBySomeone = false
            let members = try connection.rows(
                """
                WITH marker AS (
                    UPDATE members SET last_read_seq = $3, last_posted_at = $5
                    WHERE conversation_id = $1 AND user_id = $2 AND $4
                )
                SELECT \(Self.memberStateColumns), EXISTS (SELECT 1 FROM blocks b
                    WHERE b.user_id = members.user_id AND b.blocked_id = $2 AND b.user_id != $2)
                FROM members WHERE conversation_id = $1 ORDER BY user_id
                """,
                new.conversationID.rawValue, new.senderID.rawValue, message.seq, new.type == .chat, now.milliseconds,
                as: { row in
                    if try row.bool(5) { blockedBySomeone = true }
                    return try Self.memberState(row)
                })
            if new.requireMembership {
                guard let sender = members.first(where: { $0.user == new.senderID }) else { throw StoreError.notMember }
                try Self.checkPosting(
                    sender, kind: conversation.kind, slowMode: conversation.slowMode, blocked: blockedBySomeone, at: now)
            }
            if let quota = new.quota, new.type == .chat {
                try Self.chargeQuota(new.senderID, bytes: MessageQuota.cost(of: new.text), quota, at: now, connection)
            }
            if let replyTo = new.replyTo {
                let home = try connection.first(
                    "SELECT conversation_id FROM messages WHERE id = $1", replyTo.rawValue, as: { try $0.int(0) })
                guard home == new.conversationID.rawValue else {
                    throw StoreError.invalidReference("message \(replyTo) is not in this conversation")
                }
            }
            try Self.appendConversationEvent(
                context, type: .message, conversationID: new.conversationID, messageID: message.id, at: now,
                recipients: members.map(\.user), message: (message, conversation.kind, conversation.name, sides))
            return (message, false)
        }
    }

    /// Counts `bytes` against the account's `quota` for today, in the job's transaction;
    /// `.quotaExceeded` writes nothing.
    static func chargeQuota(_ user: UserID, bytes: Int, _ quota: MessageQuota, at now: Timestamp, _ connection: PostgresConnection)
        throws
    {
        let (id, day, added, limit) = quota.chargeArguments(user, bytes: bytes, at: now)
        guard try connection.execute(chargeSQL, id, day, added, limit) == 1 else { throw quota.refusal(at: now) }
    }

    private static let chargeSQL = MessageQuota.chargeSQL { "$\($0)::int8" }

    /// Throws why `sender` may not post in the conversation now: muted, a restricted
    /// newcomer, slowed down in a group (when `slowed`: edits are not), or blocked by the
    /// other side of a one-to-one conversation (`blocked`: a member blocks them).
    static func checkPosting(
        _ sender: MemberState, kind: ConversationKind, slowMode: Int, blocked: Bool, at now: Timestamp,
        slowed: Bool = true
    ) throws {
        if let refusal = sender.postingRefusal(at: now, slowMode: kind == .group && slowed ? slowMode : 0) {
            throw refusal
        }
        if kind == .direct, blocked { throw StoreError.blocked }
    }

    /// `checkPosting` with the conversation's kind, slow mode and blocks read in one
    /// statement (for an edit, which has not read them).
    static func checkPosting(
        _ sender: MemberState, in conversationID: ConversationID, at now: Timestamp, slowed: Bool,
        _ connection: PostgresConnection
    ) throws {
        guard let (kind, slowMode, blocked) = try connection.first(
            """
            SELECT c.kind, c.slow_mode, EXISTS (SELECT 1 FROM blocks b JOIN members m ON m.user_id = b.user_id
                WHERE m.conversation_id = c.id AND b.blocked_id = $2 AND b.user_id != b.blocked_id)
            FROM conversations c WHERE c.id = $1
            """,
            conversationID.rawValue, sender.user.rawValue,
            as: { (ConversationKind(rawValue: try $0.text(0)) ?? .group, Int(try $0.int(1)), try $0.bool(2)) })
        else { throw StoreError.notFound("no conversation \(conversationID)") }
        try checkPosting(sender, kind: kind, slowMode: slowMode, blocked: blocked, at: now, slowed: slowed)
    }

    /// What `insertMessage` tells of the conversation it appended to.
    typealias InsertedInto = (kind: ConversationKind, name: String, slowMode: Int)

    /// Appends a message to its conversation (next `seq`, last message, time) in one
    /// statement, locking the conversation's row; returns it with the conversation's kind
    /// and name, and for a direct one the names of its two sides, low id first. The
    /// caller puts it into feeds.
    @discardableResult
    static func insertMessage(_ context: PostgresWriteContext, _ new: NewMessage, at now: Timestamp) throws
        -> (message: Message, conversation: InsertedInto, sides: [String])
    {
        guard let (id, seq, kind, name, slowMode, sender, sides) = try context.connection.first(
            """
            WITH c AS (
                UPDATE conversations SET last_seq = last_seq + 1, last_message_id = nextval('messages_id_seq'),
                    updated_at = $7
                WHERE id = $1 RETURNING id, last_seq, last_message_id, kind, name, slow_mode
            ), m AS (
                INSERT INTO messages (id, conversation_id, seq, type, sender_id, text, client_msg_id, reply_to, created_at)
                SELECT c.last_message_id, c.id, c.last_seq, $2, $3, $4, $5, $6, $7 FROM c RETURNING id, seq
            )
            SELECT m.id, m.seq, c.kind, c.name, c.slow_mode, (SELECT username FROM users WHERE id = $3),
                CASE WHEN c.kind = 'direct' THEN ARRAY(
                    SELECT u.username FROM users u
                    WHERE u.id IN (split_part(c.name, ':', 1)::int8, split_part(c.name, ':', 2)::int8) ORDER BY u.id)
                END
            FROM m, c
            """,
            new.conversationID.rawValue, new.type.rawValue, new.senderID.rawValue, new.text, new.clientMessageID,
            new.replyTo?.rawValue, now.milliseconds,
            as: { row in
                (try row.int(0), try row.int(1), try row.text(2), try row.text(3), Int(try row.int(4)),
                 try row.optionalText(5), row.isNull(6) ? [] : try Self.texts(row.value(6)))
            })
        else { throw StoreError.notFound("no conversation \(new.conversationID)") }
        let message = Message(
            id: MessageID(rawValue: id), conversationID: new.conversationID, seq: seq, type: new.type,
            sender: sender ?? "", senderID: new.senderID, text: new.text, clientMessageID: new.clientMessageID,
            replyTo: new.replyTo, createdAt: now)
        return (message, (ConversationKind(rawValue: kind) ?? .group, name, slowMode), sides)
    }

    private static func texts(_ value: PostgresValue) throws -> [String] {
        guard case .textArray(let texts) = value else { throw StoreError.internalFailure("expected a text array") }
        return texts
    }
}
