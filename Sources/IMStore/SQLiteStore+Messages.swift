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
                    new.senderID.rawValue, clientID, as: { Self.message($0) }),
                let existing
            {
                return (existing, true)
            }
            if new.requireMembership {
                guard let muted = try connection.first(
                    "SELECT muted_until FROM members WHERE conversation_id = ? AND user_id = ?",
                    new.conversationID.rawValue, new.senderID.rawValue, as: { $0.optionalInt(0) })
                else {
                    try requireConversation(new.conversationID, connection)
                    throw StoreError.notMember
                }
                if let muted, muted > now.milliseconds {
                    throw StoreError.muted(until: Timestamp(milliseconds: muted))
                }
            }
            if let replyTo = new.replyTo {
                let home = try connection.scalar("SELECT conversation_id FROM messages WHERE id = ?", replyTo.rawValue)
                guard home == new.conversationID.rawValue else {
                    throw StoreError.invalidReference("message \(replyTo) is not in this conversation")
                }
            }
            let (message, conversation) = try insertMessage(context, new, at: now)
            if new.type == .chat {
                try connection.execute(
                    "UPDATE members SET last_read_seq = ? WHERE conversation_id = ? AND user_id = ?",
                    message.seq, new.conversationID.rawValue, new.senderID.rawValue)
            }
            try fanOut(
                context, type: .message, conversationID: new.conversationID, messageID: message.id, at: now,
                message: (message, conversation.kind, conversation.name))
            return (message, false)
        }
    }

    /// Appends a message to its conversation (next `seq`, last message, time); returns it
    /// with the conversation's kind and name. The caller puts it into feeds.
    @discardableResult
    func insertMessage(_ context: SQLiteDatabase.WriteContext, _ new: NewMessage, at now: Timestamp) throws
        -> (message: Message, conversation: (kind: ConversationKind, name: String))
    {
        let connection = context.connection
        guard let (last, kind, name) = try connection.first(
            "SELECT last_seq, kind, name FROM conversations WHERE id = ?", new.conversationID.rawValue,
            as: { ($0.int(0), ConversationKind(rawValue: $0.text(1)) ?? .group, $0.text(2)) })
        else { throw StoreError.notFound("no conversation \(new.conversationID)") }
        let seq = last + 1
        try connection.execute(
            "INSERT INTO messages (conversation_id, seq, type, sender_id, text, client_msg_id, reply_to, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            new.conversationID.rawValue, seq, new.type.rawValue, new.senderID.rawValue, new.text,
            new.clientMessageID, new.replyTo?.rawValue, now.milliseconds)
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

    public func message(id: MessageID) async throws -> Message? {
        try await database.read { connection in
            try connection.first(
                "SELECT \(Self.messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id WHERE m.id = ?",
                id.rawValue, as: { Self.message($0) }) ?? nil
        }
    }

    public func messages(_ conversationID: ConversationID, before: Int64?, limit: Int) async throws -> [Message] {
        try await database.read { connection in
            try connection.rows(
                """
                SELECT \(Self.messageColumns) FROM messages m JOIN users su ON su.id = m.sender_id
                WHERE m.conversation_id = ? AND m.seq < ? ORDER BY m.seq DESC LIMIT ?
                """,
                conversationID.rawValue, before ?? Int64.max, limit,
                as: { Self.message($0) }
            ).compactMap { $0 }
        }
    }

    public func markRead(_ conversationID: ConversationID, _ userID: UserID, seq: Int64) async throws -> Int64 {
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            let changed = try connection.execute(
                """
                UPDATE members SET last_read_seq = min(?, (SELECT last_seq FROM conversations WHERE id = ?))
                WHERE conversation_id = ? AND user_id = ? AND last_read_seq < min(?, (SELECT last_seq FROM conversations WHERE id = ?))
                """,
                seq, conversationID.rawValue, conversationID.rawValue, userID.rawValue, seq, conversationID.rawValue)
            guard let marker = try connection.scalar(
                "SELECT last_read_seq FROM members WHERE conversation_id = ? AND user_id = ?",
                conversationID.rawValue, userID.rawValue)
            else { throw StoreError.notMember }
            if changed == 1 {
                try fanOut(
                    context, type: .read, conversationID: conversationID, payload: EventPayload(seq: marker), at: now,
                    only: [userID])
            }
            return marker
        }
    }
}

extension SQLiteStore: EventStore {
    public func events(for userID: UserID, after position: Int64, limit: Int) async throws -> [Event] {
        try await database.read { [self] connection in
            let floor = try connection.scalar("SELECT feed_floor FROM users WHERE id = ?", userID.rawValue) ?? 0
            if position < floor { throw StoreError.cursorTooOld }
            var events: [Event] = []
            var addresses: [Int64: ConversationAddress] = [:]
            let decoder = JSONDecoder()
            try connection.query(
                """
                SELECT e.position, e.type, e.created_at, e.conversation_id, e.payload, c.kind, c.name,
                    \(Self.messageColumns)
                FROM events e
                LEFT JOIN conversations c ON c.id = e.conversation_id
                LEFT JOIN messages m ON m.id = e.message_id
                LEFT JOIN users su ON su.id = m.sender_id
                WHERE e.user_id = ? AND e.position > ? ORDER BY e.position LIMIT ?
                """,
                [userID.rawValue, position, limit]
            ) { row in
                var event = Event(
                    position: row.int(0), type: EventType(rawValue: row.text(1)),
                    at: Timestamp(milliseconds: row.int(2)))
                if let conversationID = row.optionalInt(3), !row.isNull(5) {
                    let kind = ConversationKind(rawValue: row.text(5)) ?? .group
                    let address: ConversationAddress
                    if let known = addresses[conversationID] {
                        address = known
                    } else {
                        address = try self.address(of: (kind, row.text(6)), viewer: userID, connection)
                        addresses[conversationID] = address
                    }
                    event.conversation = ConversationRef(
                        id: ConversationID(rawValue: conversationID), kind: kind, address: address)
                }
                event.message = Self.message(row, at: 7)
                if let payloadText = row.optionalText(4),
                    let payload = try? decoder.decode(EventPayload.self, from: Data(payloadText.utf8))
                {
                    event.user = payload.user
                    event.by = payload.by
                    event.info = payload.info
                    event.seq = payload.seq
                    event.reason = payload.reason
                    event.until = payload.until
                }
                events.append(event)
            }
            return events
        }
    }

    public func pruneEvents(before: Timestamp) async throws -> Int {
        try await database.write { context in
            let connection = context.connection
            try connection.execute(
                """
                UPDATE users SET feed_floor = max(feed_floor,
                    (SELECT max(position) FROM events WHERE events.user_id = users.id AND created_at < ?))
                WHERE id IN (SELECT DISTINCT user_id FROM events WHERE created_at < ?)
                """,
                before.milliseconds, before.milliseconds)
            return try connection.execute("DELETE FROM events WHERE created_at < ?", before.milliseconds)
        }
    }
}
