import IMProtocol

/// Notices: a row of `notices` (its id, and its client id for repeats) and one `notice`
/// event in the recipient's feed (`user_events`), which its row goes with (schema 9).
extension SQLiteStore: NoticeStore {
    public func sendNotice(_ new: NewNotice) async throws -> (notice: Notice, duplicate: Bool) {
        try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            if let existing = try connection.first(
                Self.duplicateNoticeSQL, new.senderID.rawValue, new.clientID, as: { Self.notice($0) })
            {
                return (existing, true)
            }
            try NoticeRules.check(
                sender: try memberState(new.conversationID, new.senderID, connection),
                recipientIsMember: try memberState(new.conversationID, new.recipientID, connection) != nil,
                blocked: try connection.scalar(Self.noticeBlockSQL, new.recipientID.rawValue, new.senderID.rawValue)
                    != nil,
                at: now)
            if let quota = new.quota {
                try chargeQuota(new.senderID, bytes: MessageQuota.cost(of: new.text), quota, at: now, connection)
            }
            if let replyTo = new.replyTo {
                let home = try connection.scalar("SELECT conversation_id FROM messages WHERE id = ?", replyTo.rawValue)
                guard home == new.conversationID.rawValue else {
                    throw StoreError.invalidReference("message \(replyTo) is not in this conversation")
                }
            }
            try connection.execute(
                Self.insertNoticeSQL, new.conversationID.rawValue, new.senderID.rawValue, new.recipientID.rawValue,
                new.clientID, new.text, new.replyTo?.rawValue, now.milliseconds)
            let notice = Notice(
                id: NoticeID(rawValue: connection.lastInsertRowID), conversationID: new.conversationID,
                sender: try username(new.senderID, connection) ?? "", senderID: new.senderID,
                recipientID: new.recipientID, text: new.text, clientID: new.clientID, replyTo: new.replyTo,
                createdAt: now)
            try appendUserEvent(
                context, type: .notice, users: [new.recipientID], conversationID: new.conversationID,
                payload: EventPayload(notice: notice), at: now)
            return (notice, false)
        }
    }

    private static let duplicateNoticeSQL = NoticeRules.duplicateSQL { "?\($0)" }
    private static let insertNoticeSQL = NoticeRules.insertSQL { "?\($0)" }
    private static let noticeBlockSQL = NoticeRules.blockSQL { "?\($0)" }

    /// Maps `NoticeRules.columns`.
    private static func notice(_ row: SQLiteRow) -> Notice {
        Notice(
            id: NoticeID(rawValue: row.int(0)), conversationID: ConversationID(rawValue: row.int(1)),
            sender: row.text(2), senderID: UserID(rawValue: row.int(3)), recipientID: UserID(rawValue: row.int(4)),
            text: row.text(5), clientID: row.text(6), replyTo: row.optionalInt(7).map { MessageID(rawValue: $0) },
            createdAt: Timestamp(milliseconds: row.int(8)))
    }
}
