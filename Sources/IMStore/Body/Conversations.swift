import Foundation
import IMProtocol

/// Groups, rooms and direct conversations, and their members (`ConversationStore`). How a
/// member is added or removed, and the sessions list, are each engine's own: they keep
/// the feeds (`SQLiteStore+Conversations.swift`, `PostgresStore+Conversations.swift`).
extension StoreEngine {
    public func createConversation(
        kind: ConversationKind, name: String, title: String, description: String, logoURL: String,
        creator: UserID, settings: GroupSettings
    ) async throws -> ConversationRecord {
        try await write { [self] context in
            let now = clock()
            let connection = context.connection
            try Self.requireUser(creator, connection)
            let id: ConversationID
            do {
                guard let inserted = try connection.first(
                    """
                    INSERT INTO conversations (kind, name, title, logo_url, description, created_by, created_at, updated_at,
                        join_policy, new_members, slow_mode, info_editable_by)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9, ?10, ?11) RETURNING id
                    """,
                    kind.rawValue, name, title, logoURL, description, creator.rawValue, now.milliseconds,
                    (settings.join ?? .invite).rawValue, (settings.newMembers ?? .full).rawValue,
                    Int(settings.slowMode?.seconds ?? 0), (settings.infoEditableBy ?? .admins).rawValue,
                    as: { try $0.int(0) })
                else { throw StoreError.internalFailure("INSERT INTO conversations returned nothing") }
                id = ConversationID(rawValue: inserted)
            } catch where Self.isUniqueViolation(error) {
                throw StoreError.conflict("a \(kind.rawValue) named '\(name)' already exists")
            }
            let creatorName = try username(creator, connection) ?? "someone"
            _ = try addMember(
                context, id, creator, role: kind == .group ? .owner : .member, restricted: false,
                change: MembershipChange(event: .memberJoined, notice: "\(creatorName) created the \(kind.rawValue)"),
                at: now)
            return try Self.record(id, connection)
        }
    }

    public func conversation(id: ConversationID) async throws -> ConversationRecord? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.id = ?1", id.rawValue,
                as: { try Self.conversationRecord($0) })
        }
    }

    public func conversation(kind: ConversationKind, name: String) async throws -> ConversationRecord? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.kind = ?1 AND c.name = ?2",
                kind.rawValue, name, as: { try Self.conversationRecord($0) })
        }
    }

    public func directConversation(_ a: UserID, _ b: UserID) async throws -> ConversationRecord {
        let name = ConversationRecord.directName(a, b)
        if let existing = try await conversation(kind: .direct, name: name) { return existing }
        return try await write { [self] context in
            let now = clock()
            let connection = context.connection
            try Self.requireUser(a, connection)
            try Self.requireUser(b, connection)
            // Another node creating it at the same time: this insert waits for its commit
            // and then does nothing.
            let created = try connection.first(
                """
                INSERT INTO conversations (kind, name, created_at, updated_at) VALUES ('direct', ?1, ?2, ?2)
                ON CONFLICT DO NOTHING RETURNING id
                """,
                name, now.milliseconds, as: { try $0.int(0) })
            if let created {
                // No event announces a direct conversation: both read it from the next
                // position on, before which it has nothing.
                let from = try nextFeedPosition(context)
                let users = Set([a, b])
                for user in users {
                    _ = try Self.insertMember(
                        connection, ConversationID(rawValue: created), user, role: .member, lastReadSeq: 0, at: now,
                        position: from)
                }
                try connection.execute("UPDATE conversations SET member_count = ?1 WHERE id = ?2", users.count, created)
            }
            guard let record = try connection.first(
                "SELECT \(Self.conversationColumns) FROM conversations c WHERE c.kind = 'direct' AND c.name = ?1",
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
                WHERE conversation_id = ?1 AND user_id = ?2
                """,
                conversationID.rawValue, userID.rawValue,
                as: { row in
                    MembershipRecord(
                        conversationID: conversationID, userID: userID,
                        role: MemberRole(rawValue: try row.text(0)) ?? .member, joinedAt: try row.time(1),
                        lastReadSeq: try row.int(2), mutedUntil: try row.optionalTime(3), joinedSeq: try row.int(4))
                })
        }
    }

    public func addMember(
        _ conversationID: ConversationID, _ userID: UserID, role: MemberRole, change: MembershipChange
    ) async throws -> Bool {
        try await write(lockOrder: conversationID) { [self] context in
            try addMember(context, conversationID, userID, role: role, restricted: false, change: change, at: clock())
        }
    }

    public func removeMember(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange)
        async throws -> Bool
    {
        try await write(lockOrder: conversationID) { [self] context in
            try removeMember(context, conversationID, userID, change: change, at: clock())
        }
    }

    public func members(_ conversationID: ConversationID) async throws -> [Member] {
        let now = clock().milliseconds
        return try await read { connection in
            try connection.rows(
                """
                SELECT \(Self.userColumns), mb.role, mb.joined_at, mb.muted_until, mb.restricted
                FROM members mb JOIN users u ON u.id = mb.user_id
                WHERE mb.conversation_id = ?1 ORDER BY mb.joined_at, u.username COLLATE "C"
                """,
                conversationID.rawValue,
                as: { row in
                    let at = Self.userColumnCount
                    let mutedUntil = try row.optionalInt(at + 2).flatMap { $0 > now ? $0 : nil }
                    return Member(
                        user: try Self.userRecord(row).user, role: MemberRole(rawValue: try row.text(at)) ?? .member,
                        joinedAt: try row.time(at + 1), muted: mutedUntil.map { _ in true },
                        mutedUntil: mutedUntil.flatMap { $0 == MemberState.untilUnmuted ? nil : Timestamp(milliseconds: $0) },
                        restricted: try row.bool(at + 3) ? true : nil)
                })
        }
    }

    public func conversationInfos(for userID: UserID, kind: ConversationKind) async throws -> [ConversationInfo] {
        try await read { [self] connection in
            let records = try connection.rows(
                """
                SELECT \(Self.conversationColumns) FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.user_id = ?1 AND c.kind = ?2 ORDER BY c.name COLLATE "C"
                """,
                userID.rawValue, kind.rawValue, as: { try Self.conversationRecord($0) })
            return try records.map { try info($0, connection) }
        }
    }

    /// Adds a member's row, reading the conversation from `position` on (PostgreSQL: from
    /// the batch's event that announces them, when nil); false when already a member.
    static func insertMember(
        _ connection: Connection, _ conversationID: ConversationID, _ user: UserID, role: MemberRole,
        lastReadSeq: Int64? = nil, restricted: Bool = false, at now: Timestamp, position: Int64?
    ) throws -> Bool {
        try connection.execute(
            """
            INSERT INTO members (conversation_id, user_id, role, joined_at, last_read_seq, joined_position, joined_seq, restricted)
            SELECT ?1, ?2, ?3, ?4, coalesce(?5, last_seq), coalesce(?6, 9223372036854775807), last_seq, ?7
            FROM conversations WHERE id = ?1 ON CONFLICT DO NOTHING
            """,
            conversationID.rawValue, user.rawValue, role.rawValue, now.milliseconds, lastReadSeq, position, restricted)
            == 1
    }

    /// What a membership change says: its notice (a system message from the actor, when
    /// the change has one) and its event's payload. Each engine writes the event itself
    /// (`announce`), where the member's reading starts or ends.
    func announcement(
        _ context: WriteContext, _ conversationID: ConversationID, member: UserID, change: MembershipChange,
        at now: Timestamp
    ) throws -> (notice: MessageID?, payload: EventPayload) {
        let connection = context.connection
        guard let user = try connection.first(
            "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?1", member.rawValue,
            as: { try Self.userRecord($0).user })
        else { throw StoreError.notFound("no account \(member)") }
        let byName = try change.by.flatMap { try username($0, connection) }
        let notice = try change.notice.map { text in
            try appendMessage(
                context,
                NewMessage(
                    conversationID: conversationID, senderID: change.by ?? member, type: .system, text: text,
                    requireMembership: false),
                at: now)
        }
        let payload = EventPayload(
            user: user, by: byName, reason: change.reason, until: change.until, role: change.role, via: change.via)
        return (notice?.id, payload)
    }

    /// Gives `member`, who is not a member before or after (someone banned or invited),
    /// the event in their own feed too, unless they block whoever acted.
    func tellOutsider(
        _ context: WriteContext, _ conversationID: ConversationID, member: UserID, change: MembershipChange,
        payload: EventPayload, at now: Timestamp
    ) throws {
        guard try change.by.map({ try Self.takesEvents(member, from: $0, context.connection) }) ?? true else { return }
        try appendUserEvent(
            context, type: change.event, users: [member], conversationID: conversationID, payload: payload, at: now)
    }

    /// After a member left: a group is never left without an owner, the longest-standing
    /// admin, else member, takes over.
    static func keepAnOwner(_ conversationID: ConversationID, _ connection: Connection) throws {
        try connection.execute(
            """
            UPDATE members SET role = 'owner'
            WHERE conversation_id = ?1 AND NOT EXISTS (SELECT 1 FROM members WHERE conversation_id = ?1 AND role = 'owner')
                AND (SELECT kind FROM conversations WHERE id = ?1) = 'group'
                AND user_id = (SELECT user_id FROM members WHERE conversation_id = ?1
                    ORDER BY role = 'admin' DESC, joined_at, user_id LIMIT 1)
            """,
            conversationID.rawValue)
    }
}
