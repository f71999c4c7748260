import Foundation
import IMProtocol

extension PostgresStore: ConversationStore {
    public func createConversation(
        kind: ConversationKind, name: String, title: String, description: String, logoURL: String,
        creator: UserID, settings: GroupSettings
    ) async throws -> ConversationRecord {
        try await write { [clock] context in
            let now = clock()
            let connection = context.connection
            let id: ConversationID
            do {
                guard let inserted = try connection.first(
                    """
                    INSERT INTO conversations (kind, name, title, logo_url, description, created_by, created_at, updated_at,
                        join_policy, new_members, slow_mode, info_editable_by)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $10, $11) RETURNING id
                    """,
                    kind.rawValue, name, title, logoURL, description, creator.rawValue, now.milliseconds,
                    (settings.join ?? .invite).rawValue, (settings.newMembers ?? .full).rawValue,
                    Int(settings.slowMode?.seconds ?? 0), (settings.infoEditableBy ?? .admins).rawValue,
                    as: { try $0.int(0) })
                else { throw StoreError.internalFailure("INSERT INTO conversations returned nothing") }
                id = ConversationID(rawValue: inserted)
            } catch let error as PostgresError where error.kind == .uniqueViolation {
                throw StoreError.conflict("a \(kind.rawValue) named '\(name)' already exists")
            } catch let error as PostgresError where error.kind == .foreignKeyViolation {
                throw StoreError.notFound("no account \(creator)")
            }
            let creatorName = try Self.username(creator, connection) ?? "someone"
            _ = try Self.addMember(
                context, id, creator, role: kind == .group ? .owner : .member,
                change: MembershipChange(event: .memberJoined, notice: "\(creatorName) created the \(kind.rawValue)"),
                at: now)
            return try Self.record(id, connection)
        }
    }

    public func conversation(id: ConversationID) async throws -> ConversationRecord? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.id = $1", id.rawValue,
                as: { try Self.conversationRecord($0) })
        }
    }

    public func conversation(kind: ConversationKind, name: String) async throws -> ConversationRecord? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.kind = $1 AND c.name = $2",
                kind.rawValue, name, as: { try Self.conversationRecord($0) })
        }
    }

    public func directConversation(_ a: UserID, _ b: UserID) async throws -> ConversationRecord {
        let name = ConversationRecord.directName(a, b)
        if let existing = try await conversation(kind: .direct, name: name) { return existing }
        return try await write { [clock] context in
            let now = clock()
            let connection = context.connection
            try Self.requireUser(a, connection)
            try Self.requireUser(b, connection)
            // Another node creating it at the same time: this insert waits for its commit
            // and then does nothing.
            let created = try connection.first(
                """
                INSERT INTO conversations (kind, name, created_at, updated_at) VALUES ('direct', $1, $2, $2)
                ON CONFLICT DO NOTHING RETURNING id
                """,
                name, now.milliseconds, as: { try $0.int(0) })
            if let created {
                // No event announces a direct conversation: both read it from the next
                // position on. Nobody sees it before this commits, so its events all come
                // after the clock as it is now.
                let from = (try connection.first("SELECT position FROM feed_clock", as: { try $0.int(0) }) ?? 0) + 1
                let users = Set([a, b])
                for user in users {
                    _ = try Self.insertMember(
                        connection, ConversationID(rawValue: created), user, role: .member, lastReadSeq: 0, at: now,
                        position: from)
                }
                try connection.execute("UPDATE conversations SET member_count = $1 WHERE id = $2", users.count, created)
            }
            guard let record = try connection.first(
                "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.kind = 'direct' AND c.name = $1",
                name, as: { try Self.conversationRecord($0) })
            else { throw StoreError.internalFailure("direct conversation \(name) vanished") }
            return record
        }
    }

    public func membership(_ conversationID: ConversationID, _ userID: UserID) async throws -> MembershipRecord? {
        try await read { connection in
            try connection.first(
                """
                SELECT role, joined_at, last_read_seq, muted_until, joined_seq FROM members
                WHERE conversation_id = $1 AND user_id = $2
                """,
                conversationID.rawValue, userID.rawValue,
                as: { row in
                    MembershipRecord(
                        conversationID: conversationID, userID: userID,
                        role: MemberRole(rawValue: try row.text(0)) ?? .member,
                        joinedAt: Timestamp(milliseconds: try row.int(1)), lastReadSeq: try row.int(2),
                        mutedUntil: try row.optionalInt(3).map { Timestamp(milliseconds: $0) }, joinedSeq: try row.int(4))
                })
        }
    }

    public func addMember(
        _ conversationID: ConversationID, _ userID: UserID, role: MemberRole, change: MembershipChange
    ) async throws -> Bool {
        try await write(lockOrder: conversationID) { [clock] context in
            try Self.addMember(context, conversationID, userID, role: role, change: change, at: clock())
        }
    }

    static func addMember(
        _ context: PostgresWriteContext, _ conversationID: ConversationID, _ userID: UserID,
        role: MemberRole, restricted: Bool = false, change: MembershipChange, at now: Timestamp
    ) throws -> Bool {
        let connection = context.connection
        _ = try record(conversationID, connection, forUpdate: true)
        try requireUser(userID, connection)
        guard try insertMember(connection, conversationID, userID, role: role, restricted: restricted, at: now) else {
            return false
        }
        try connection.execute(
            "UPDATE conversations SET member_count = member_count + 1 WHERE id = $1", conversationID.rawValue)
        // The member reads the conversation from the event that announces them on.
        let event = try announce(context, conversationID, member: userID, change: change, at: now)
        context.batch.events[event].joins = [userID]
        return true
    }

    public func removeMember(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange)
        async throws -> Bool
    {
        try await write(lockOrder: conversationID) { [self] context in
            try removeMember(context, conversationID, userID, change: change, at: clock())
        }
    }

    /// Removes a member inside a write job; see `removeMember(_:_:change:)`.
    func removeMember(
        _ context: PostgresWriteContext, _ conversationID: ConversationID, _ userID: UserID,
        change: MembershipChange, at now: Timestamp
    ) throws -> Bool {
        let connection = context.connection
        _ = try Self.record(conversationID, connection, forUpdate: true)
        guard try connection.first(
            "SELECT 1 FROM members WHERE conversation_id = $1 AND user_id = $2", conversationID.rawValue,
            userID.rawValue, as: { _ in true }) != nil
        else { return false }
        // Everyone is told, the member included, who reads up to this event and no further.
        let event = try Self.announce(context, conversationID, member: userID, change: change, at: now)
        if let leave = try Self.deleteMember(context, conversationID, userID) {
            context.batch.events[event].leaves = [leave]
        }
        try connection.execute(
            "UPDATE conversations SET member_count = member_count - 1 WHERE id = $1", conversationID.rawValue)
        // A group is never left without an owner: the longest-standing admin, else
        // member, takes over.
        try connection.execute(
            """
            UPDATE members SET role = 'owner'
            WHERE conversation_id = $1 AND NOT EXISTS (SELECT 1 FROM members WHERE conversation_id = $1 AND role = 'owner')
                AND (SELECT kind FROM conversations WHERE id = $1) = 'group'
                AND user_id = (SELECT user_id FROM members WHERE conversation_id = $1
                    ORDER BY role = 'admin' DESC, joined_at, user_id LIMIT 1)
            """,
            conversationID.rawValue)
        return true
    }

    /// Writes a membership notice (when the change has one) into the conversation and adds
    /// its event for every member; returns the event's index in the batch, for the caller
    /// to complete. With `tellingOutsider`, `member` (who is not a member before or after,
    /// e.g. someone banned or invited) gets the event too, in their own feed.
    @discardableResult
    static func announce(
        _ context: PostgresWriteContext, _ conversationID: ConversationID, member: UserID,
        change: MembershipChange, at now: Timestamp, tellingOutsider: Bool = false
    ) throws -> Int {
        let connection = context.connection
        guard let user = try connection.first(
            "SELECT \(userColumns) FROM users u WHERE u.id = $1", member.rawValue, as: { try userRecord($0).user })
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
        let event = try appendConversationEvent(
            context, type: change.event, conversationID: conversationID, messageID: notice?.id, payload: payload, at: now)
        if tellingOutsider, try change.by.map({ try takesEvents(member, from: $0, connection) }) ?? true {
            try appendUserEvent(
                context, type: change.event, users: [member], conversationID: conversationID, payload: payload, at: now)
        }
        return event
    }

    public func members(_ conversationID: ConversationID) async throws -> [Member] {
        let now = clock().milliseconds
        return try await read { connection in
            try connection.rows(
                """
                SELECT \(Self.userColumns), mb.role, mb.joined_at, mb.muted_until, mb.restricted
                FROM members mb JOIN users u ON u.id = mb.user_id
                WHERE mb.conversation_id = $1 ORDER BY mb.joined_at, u.username COLLATE "C"
                """,
                conversationID.rawValue,
                as: { row in
                    let at = Self.userColumnCount
                    let mutedUntil = try row.optionalInt(at + 2).flatMap { $0 > now ? $0 : nil }
                    return Member(
                        user: try Self.userRecord(row).user, role: MemberRole(rawValue: try row.text(at)) ?? .member,
                        joinedAt: Timestamp(milliseconds: try row.int(at + 1)), muted: mutedUntil.map { _ in true },
                        mutedUntil: mutedUntil.flatMap { $0 == MemberState.untilUnmuted ? nil : Timestamp(milliseconds: $0) },
                        restricted: try row.bool(at + 3) ? true : nil)
                })
        }
    }

    public func conversations(for userID: UserID) async throws -> [Conversation] {
        try await read { connection in
            var result = try connection.rows(
                """
                SELECT c.id, c.kind, c.name, c.title, c.logo_url, c.updated_at, mb.last_read_seq,
                    \(SQLiteStore.unreadSQL),
                    o.username, o.nickname, o.avatar_url,
                    \(Self.messageColumns)
                FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                LEFT JOIN users o ON o.id = CASE WHEN c.kind != 'direct' THEN NULL
                    WHEN split_part(c.name, ':', 1)::int8 = $1 THEN split_part(c.name, ':', 2)::int8
                    ELSE split_part(c.name, ':', 1)::int8 END
                LEFT JOIN messages m ON m.id = c.last_message_id AND (c.kind != 'room' OR m.seq > mb.joined_seq)
                LEFT JOIN users su ON su.id = m.sender_id
                WHERE mb.user_id = $1 AND (c.kind != 'direct' OR c.last_seq > 0)
                """,
                userID.rawValue,
                as: { row in
                    let kind = ConversationKind(rawValue: try row.text(1)) ?? .group
                    let name = try row.text(2)
                    let title = try row.text(3)
                    var conversation = Conversation(
                        id: ConversationID(rawValue: try row.int(0)), kind: kind,
                        address: ConversationAddress(kind: kind, name: name), displayName: title.isEmpty ? name : title,
                        avatarURL: try row.text(4), lastMessage: try Self.message(row, at: 11),
                        unread: SQLiteStore.unread(try row.int(7)), lastReadSeq: try row.int(6),
                        updatedAt: Timestamp(milliseconds: try row.int(5)))
                    if kind == .direct, let other = try row.optionalText(8) {
                        conversation.address = .user(other)
                        conversation.displayName = try row.text(9)
                        conversation.avatarURL = try row.text(10)
                    }
                    return conversation
                })
            result.sort(by: Conversation.listedBefore)
            return result
        }
    }

    public func conversationInfos(for userID: UserID, kind: ConversationKind) async throws -> [ConversationInfo] {
        try await read { connection in
            let records = try connection.rows(
                """
                SELECT \(Self.conversationColumns) FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.user_id = $1 AND c.kind = $2 ORDER BY c.name COLLATE "C"
                """,
                userID.rawValue, kind.rawValue, as: { try Self.conversationRecord($0) })
            return try records.map { try Self.info($0, connection) }
        }
    }
}
