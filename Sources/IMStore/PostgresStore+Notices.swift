import IMProtocol

/// Notices (as `SQLiteStore+Notices.swift`): a row of `notices` and one `notice` event in
/// the recipient's feed, which its row goes with.
extension PostgresStore: NoticeStore {
    public func sendNotice(_ new: NewNotice) async throws -> (notice: Notice, duplicate: Bool) {
        try await write(lockOrder: new.conversationID) { [clock] context in
            let now = clock()
            let connection = context.connection
            if let existing = try connection.first(
                Self.duplicateNoticeSQL, new.senderID.rawValue, new.clientID, as: { try Self.notice($0) })
            {
                return (existing, true)
            }
            // The conversation's row is locked first, as a message's append locks it: the
            // members read next stay the members until the notice is in.
            _ = try Self.record(new.conversationID, connection, forUpdate: true)
            try NoticeRules.check(
                sender: try Self.memberState(new.conversationID, new.senderID, connection),
                recipientIsMember: try Self.memberState(new.conversationID, new.recipientID, connection) != nil,
                blocked: try connection.first(
                    Self.noticeBlockSQL, new.recipientID.rawValue, new.senderID.rawValue, as: { _ in true }) ?? false,
                at: now)
            if let quota = new.quota {
                try Self.chargeQuota(new.senderID, bytes: MessageQuota.cost(of: new.text), quota, at: now, connection)
            }
            if let replyTo = new.replyTo {
                let home = try connection.first(
                    "SELECT conversation_id FROM messages WHERE id = $1", replyTo.rawValue, as: { try $0.int(0) })
                guard home == new.conversationID.rawValue else {
                    throw StoreError.invalidReference("message \(replyTo) is not in this conversation")
                }
            }
            let id: Int64
            do {
                id = try connection.first(
                    Self.insertNoticeSQL + " RETURNING id", new.conversationID.rawValue, new.senderID.rawValue,
                    new.recipientID.rawValue, new.clientID, new.text, new.replyTo?.rawValue, now.milliseconds,
                    as: { try $0.int(0) }) ?? 0
            } catch let error as PostgresError where error.kind == .uniqueViolation {
                // The same client id sent through another node at the same time: run again,
                // and find the notice it wrote.
                throw PostgresWriter.RunAgain()
            }
            let notice = Notice(
                id: NoticeID(rawValue: id), conversationID: new.conversationID,
                sender: try Self.username(new.senderID, connection) ?? "", senderID: new.senderID,
                recipientID: new.recipientID, text: new.text, clientID: new.clientID, replyTo: new.replyTo,
                createdAt: now)
            try Self.appendUserEvent(
                context, type: .notice, users: [new.recipientID], conversationID: new.conversationID,
                payload: EventPayload(notice: notice), at: now)
            return (notice, false)
        }
    }

    private static let duplicateNoticeSQL = NoticeRules.duplicateSQL { "$\($0)" }
    private static let insertNoticeSQL = NoticeRules.insertSQL { "$\($0)" }
    private static let noticeBlockSQL = NoticeRules.blockSQL { "$\($0)" }

    /// Maps `NoticeRules.columns`.
    private static func notice(_ row: PostgresRow) throws -> Notice {
        Notice(
            id: NoticeID(rawValue: try row.int(0)), conversationID: ConversationID(rawValue: try row.int(1)),
            sender: try row.text(2), senderID: UserID(rawValue: try row.int(3)),
            recipientID: UserID(rawValue: try row.int(4)), text: try row.text(5), clientID: try row.text(6),
            replyTo: try row.optionalInt(7).map { MessageID(rawValue: $0) },
            createdAt: Timestamp(milliseconds: try row.int(8)))
    }
}
