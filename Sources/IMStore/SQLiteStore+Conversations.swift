import Foundation
import IMProtocol

extension SQLiteStore: ConversationStore {
    public func createConversation(
        kind: ConversationKind, name: String, title: String, description: String, logoURL: String,
        creator: UserID, settings: GroupSettings
    ) async throws -> ConversationRecord {
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            do {
                try connection.execute(
                    """
                    INSERT INTO conversations (kind, name, title, logo_url, description, created_by, created_at, updated_at,
                        join_policy, new_members, slow_mode, info_editable_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    kind.rawValue, name, title, logoURL, description, creator.rawValue, now.milliseconds, now.milliseconds,
                    (settings.join ?? .invite).rawValue, (settings.newMembers ?? .full).rawValue,
                    Int(settings.slowMode?.seconds ?? 0), (settings.infoEditableBy ?? .admins).rawValue)
            } catch let error as SQLiteError where error.isUniqueViolation {
                throw StoreError.conflict("a \(kind.rawValue) named '\(name)' already exists")
            }
            let id = ConversationID(rawValue: connection.lastInsertRowID)
            let creatorName = try username(creator, connection) ?? "someone"
            _ = try addMember(
                context, id, creator, role: kind == .group ? .owner : .member,
                change: MembershipChange(event: .memberJoined, notice: "\(creatorName) created the \(kind.rawValue)"),
                at: now)
            return try record(id, connection)
        }
    }

    public func conversation(id: ConversationID) async throws -> ConversationRecord? {
        try await database.read { connection in
            try connection.first(
                "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.id = ?", id.rawValue,
                as: { Self.conversationRecord($0) })
        }
    }

    public func conversation(kind: ConversationKind, name: String) async throws -> ConversationRecord? {
        try await database.read { connection in
            try connection.first(
                "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.kind = ? AND c.name = ?",
                kind.rawValue, name, as: { Self.conversationRecord($0) })
        }
    }

    public func directConversation(_ a: UserID, _ b: UserID) async throws -> ConversationRecord {
        let name = ConversationRecord.directName(a, b)
        if let existing = try await conversation(kind: .direct, name: name) { return existing }
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            try requireUser(a, connection)
            try requireUser(b, connection)
            let created = try connection.execute(
                "INSERT INTO conversations (kind, name, created_at, updated_at) VALUES ('direct', ?, ?, ?) ON CONFLICT DO NOTHING",
                name, now.milliseconds, now.milliseconds)
            guard let id = try connection.scalar(
                "SELECT id FROM conversations WHERE kind = 'direct' AND name = ?", name)
            else { throw StoreError.internalFailure("direct conversation \(name) vanished") }
            if created == 1 {
                // No event announces a direct conversation: both read it from the next
                // position on, before which it has nothing.
                let from = positions.next.load(ordering: .relaxed)
                for user in Set([a, b]) {
                    _ = try insertMember(
                        connection, ConversationID(rawValue: id), user, role: .member, lastReadSeq: 0, at: now,
                        position: from)
                }
                try connection.execute(
                    "UPDATE conversations SET member_count = ? WHERE id = ?", Set([a, b]).count, id)
            }
            return try record(ConversationID(rawValue: id), connection)
        }
    }

    public func membership(_ conversationID: ConversationID, _ userID: UserID) async throws -> MembershipRecord? {
        try await database.read { connection in
            try connection.first(
                "SELECT role, joined_at, last_read_seq, muted_until, joined_seq FROM members WHERE conversation_id = ? AND user_id = ?",
                conversationID.rawValue, userID.rawValue,
                as: { row in
                    MembershipRecord(
                        conversationID: conversationID, userID: userID,
                        role: MemberRole(rawValue: row.text(0)) ?? .member,
                        joinedAt: Timestamp(milliseconds: row.int(1)), lastReadSeq: row.int(2),
                        mutedUntil: row.optionalInt(3).map { Timestamp(milliseconds: $0) }, joinedSeq: row.int(4))
                })
        }
    }

    public func addMember(
        _ conversationID: ConversationID, _ userID: UserID, role: MemberRole, change: MembershipChange
    ) async throws -> Bool {
        return try await database.write { [self] context in
            let now = clock()
            return try addMember(context, conversationID, userID, role: role, change: change, at: now)
        }
    }

    func addMember(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, _ userID: UserID,
        role: MemberRole, restricted: Bool = false, change: MembershipChange, at now: Timestamp
    ) throws -> Bool {
        let connection = context.connection
        try requireConversation(conversationID, connection)
        try requireUser(userID, connection)
        // The member reads the conversation from the event that announces them on.
        let position = positions.issue()
        let added = try insertMember(
            connection, conversationID, userID, role: role, restricted: restricted, at: now, position: position)
        guard added else { return false }
        try connection.execute(
            "UPDATE conversations SET member_count = member_count + 1 WHERE id = ?", conversationID.rawValue)
        try announce(context, conversationID, member: userID, change: change, at: now, position: position)
        return true
    }

    public func removeMember(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange)
        async throws -> Bool
    {
        return try await database.write { [self] context in
            try removeMember(context, conversationID, userID, change: change, at: clock())
        }
    }

    /// Removes a member inside a write job; see `removeMember(_:_:change:)`.
    func removeMember(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, _ userID: UserID,
        change: MembershipChange, at now: Timestamp
    ) throws -> Bool {
        let connection = context.connection
        guard try connection.scalar(
            "SELECT 1 FROM members WHERE conversation_id = ? AND user_id = ?", conversationID.rawValue, userID.rawValue)
            != nil
        else { return false }
        // Everyone is told, the member included, who reads up to this event and no further.
        let position = positions.issue()
        try announce(context, conversationID, member: userID, change: change, at: now, position: position)
        _ = try deleteMember(connection, conversationID, userID, position: position)
        try connection.execute(
            "UPDATE conversations SET member_count = member_count - 1 WHERE id = ?", conversationID.rawValue)
        // A group is never left without an owner: the longest-standing admin, else
        // member, takes over.
        try connection.execute(
            """
            UPDATE members SET role = 'owner'
            WHERE conversation_id = ?1 AND NOT EXISTS (SELECT 1 FROM members WHERE conversation_id = ?1 AND role = 'owner')
                AND (SELECT kind FROM conversations WHERE id = ?1) = 'group'
                AND user_id = (SELECT user_id FROM members WHERE conversation_id = ?1
                    ORDER BY role = 'admin' DESC, joined_at, user_id LIMIT 1)
            """,
            conversationID.rawValue)
        return true
    }

    /// Writes a membership notice (when the change has one) into the conversation and its
    /// event, at `position`, for every member. With `tellingOutsider`, `member` (who is not
    /// a member before or after, e.g. someone banned or invited) gets the event too, in
    /// their own feed.
    func announce(
        _ context: SQLiteDatabase.WriteContext, _ conversationID: ConversationID, member: UserID,
        change: MembershipChange, at now: Timestamp, position: Int64? = nil, tellingOutsider: Bool = false
    ) throws {
        let connection = context.connection
        guard let user = try connection.first(
            "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", member.rawValue, as: { Self.userRecord($0).user })
        else { throw StoreError.notFound("no account \(member)") }
        let byName = try change.by.flatMap { try username($0, connection) }
        let notice = try change.notice.map { text in
            try insertMessage(
                context,
                NewMessage(
                    conversationID: conversationID, senderID: change.by ?? member, type: .system, text: text,
                    requireMembership: false),
                at: now
            ).message
        }
        let payload = EventPayload(
            user: user, by: byName, reason: change.reason, until: change.until, role: change.role, via: change.via)
        try appendConversationEvent(
            context, type: change.event, conversationID: conversationID, messageID: notice?.id, payload: payload,
            at: now, position: position)
        if tellingOutsider, try change.by.map({ try takesEvents(member, from: $0, connection) }) ?? true {
            try appendUserEvent(
                context, type: change.event, users: [member], conversationID: conversationID, payload: payload, at: now)
        }
    }

    public func members(_ conversationID: ConversationID) async throws -> [Member] {
        let now = clock().milliseconds
        return try await database.read { connection in
            try connection.rows(
                """
                SELECT \(Self.userColumns), mb.role, mb.joined_at, mb.muted_until, mb.restricted
                FROM members mb JOIN users u ON u.id = mb.user_id
                WHERE mb.conversation_id = ? ORDER BY mb.joined_at, u.username
                """,
                conversationID.rawValue,
                as: { row in
                    let at = Self.userColumnCount
                    let mutedUntil = row.optionalInt(at + 2).flatMap { $0 > now ? $0 : nil }
                    return Member(
                        user: Self.userRecord(row).user, role: MemberRole(rawValue: row.text(at)) ?? .member,
                        joinedAt: Timestamp(milliseconds: row.int(at + 1)), muted: mutedUntil.map { _ in true },
                        mutedUntil: mutedUntil.flatMap { $0 == MemberState.untilUnmuted ? nil : Timestamp(milliseconds: $0) },
                        restricted: row.bool(at + 3) ? true : nil)
                })
        }
    }

    func record(_ id: ConversationID, _ connection: SQLiteConnection) throws -> ConversationRecord {
        guard let record = try connection.first(
            "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.id = ?", id.rawValue,
            as: { Self.conversationRecord($0) })
        else { throw StoreError.notFound("no conversation \(id)") }
        return record
    }

    public func conversations(for userID: UserID) async throws -> [Conversation] {
        try await database.read { connection in
            var rows: [(Conversation, otherID: Int64?)] = []
            try connection.query(
                """
                SELECT c.id, c.kind, c.name, c.title, c.logo_url, c.updated_at, mb.last_read_seq,
                    \(Self.unreadSQL),
                    \(Self.messageColumns)
                FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                LEFT JOIN messages m ON m.id = c.last_message_id AND (c.kind != 'room' OR m.seq > mb.joined_seq)
                LEFT JOIN users su ON su.id = m.sender_id
                WHERE mb.user_id = ? AND (c.kind != 'direct' OR c.last_seq > 0)
                """,
                [userID.rawValue]
            ) { row in
                let kind = ConversationKind(rawValue: row.text(1)) ?? .group
                let name = row.text(2)
                var otherID: Int64?
                if kind == .direct {
                    let ids = name.split(separator: ":").compactMap { Int64($0) }
                    otherID = ids.first { $0 != userID.rawValue } ?? userID.rawValue
                }
                let title = row.text(3)
                let conversation = Conversation(
                    id: ConversationID(rawValue: row.int(0)), kind: kind,
                    address: ConversationAddress(kind: kind, name: name), displayName: title.isEmpty ? name : title,
                    avatarURL: row.text(4), lastMessage: Self.message(row, at: 8), unread: Self.unread(row.int(7)),
                    lastReadSeq: row.int(6), updatedAt: Timestamp(milliseconds: row.int(5)))
                rows.append((conversation, otherID))
            }
            var result: [Conversation] = []
            result.reserveCapacity(rows.count)
            for (conversation, otherID) in rows {
                var conversation = conversation
                if let otherID,
                    let other = try connection.first(
                        "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", otherID, as: { Self.userRecord($0).user })
                {
                    conversation.address = .user(other.username)
                    conversation.displayName = other.nickname
                    conversation.avatarURL = other.avatarURL
                }
                result.append(conversation)
            }
            result.sort(by: Conversation.listedBefore)
            return result
        }
    }

    public func conversationInfos(for userID: UserID, kind: ConversationKind) async throws -> [ConversationInfo] {
        try await database.read { [self] connection in
            let records = try connection.rows(
                "SELECT \(Self.conversationColumns) FROM members mb JOIN conversations c ON c.id = mb.conversation_id WHERE mb.user_id = ? AND c.kind = ? ORDER BY c.name",
                userID.rawValue, kind.rawValue, as: { Self.conversationRecord($0) })
            return try records.map { try info($0, connection) }
        }
    }
}
