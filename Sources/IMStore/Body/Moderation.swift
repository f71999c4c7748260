import IMProtocol

/// Moderation acts and bans (the rules: `GroupRules`). Each act locks the group's row,
/// reads who may do it and does it in one write job, so a demotion or ban on another node
/// at the same time comes wholly before or after it; it tells the members with an event
/// carrying its notice, and someone acted on who is not a member (banned or unbanned from
/// outside) gets the event in their own feed too.
extension StoreEngine {
    public func moderate(_ act: ModerationAct) async throws -> ModerationOutcome {
        try await write(lockOrder: act.conversationID) { [self] context in
            let now = clock()
            let connection = context.connection
            let group = try Self.record(act.conversationID, connection, forUpdate: true)
            guard group.kind == .group else { throw StoreError.invalidState("only groups have moderators") }
            let actor = try standing(act.by, in: group.id, connection)
            let target = try memberState(group.id, act.target, connection)
            try GroupRules.authorize(act.action, actor: actor, target: target?.role)
            let change = { (event: EventType) in
                MembershipChange(event: event, notice: act.notice, by: act.by.id, reason: act.reason, until: act.until)
            }
            func member() throws -> MemberState {
                guard let target else {
                    throw StoreError.notFound(
                        "'\(try username(act.target, connection) ?? "they")' is not a member of group '\(group.name)'")
                }
                return target
            }
            switch act.action {
            case .mute:
                let muted = try member()
                try connection.execute(
                    "UPDATE members SET muted_until = ?1 WHERE conversation_id = ?2 AND user_id = ?3",
                    act.until?.milliseconds ?? MemberState.untilUnmuted, group.id.rawValue, act.target.rawValue)
                try announce(context, group.id, member: act.target, change: change(.memberMuted), at: now,
                    tellingOutsider: false)
                return ModerationOutcome(changed: true, role: muted.role, until: act.until)
            case .unmute:
                let muted = try member()
                guard muted.isMuted(at: now) || muted.restricted else {
                    return ModerationOutcome(changed: false, role: muted.role)
                }
                try connection.execute(
                    "UPDATE members SET muted_until = NULL, restricted = false WHERE conversation_id = ?1 AND user_id = ?2",
                    group.id.rawValue, act.target.rawValue)
                try announce(context, group.id, member: act.target, change: change(.memberUnmuted), at: now,
                    tellingOutsider: false)
                return ModerationOutcome(changed: true, role: muted.role)
            case .kick:
                _ = try member()
                _ = try removeMember(context, group.id, act.target, change: change(.memberKicked), at: now)
                return ModerationOutcome(changed: true, role: nil)
            case .ban:
                try connection.execute(
                    """
                    INSERT INTO bans (conversation_id, user_id, banned_by, reason, until, created_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    ON CONFLICT (conversation_id, user_id) DO UPDATE SET banned_by = excluded.banned_by,
                        reason = excluded.reason, until = excluded.until, created_at = excluded.created_at
                    """,
                    group.id.rawValue, act.target.rawValue, act.by.id.rawValue, act.reason ?? "",
                    act.until?.milliseconds, now.milliseconds)
                // A ban closes every door: pending invitations and requests go with it.
                for table in ["invites", "join_requests"] {
                    try connection.execute(
                        "DELETE FROM \(table) WHERE conversation_id = ?1 AND user_id = ?2", group.id.rawValue,
                        act.target.rawValue)
                }
                if target != nil {
                    _ = try removeMember(context, group.id, act.target, change: change(.memberBanned), at: now)
                } else {
                    try announce(
                        context, group.id, member: act.target, change: change(.memberBanned), at: now,
                        tellingOutsider: true)
                }
                return ModerationOutcome(changed: true, role: nil, until: act.until)
            case .unban:
                guard try Self.activeBan(group.id, act.target, at: now, connection) != nil else {
                    return ModerationOutcome(changed: false, role: target?.role)
                }
                try connection.execute(
                    "DELETE FROM bans WHERE conversation_id = ?1 AND user_id = ?2", group.id.rawValue,
                    act.target.rawValue)
                try announce(
                    context, group.id, member: act.target, change: change(.memberUnbanned), at: now,
                    tellingOutsider: target == nil)
                return ModerationOutcome(changed: true, role: target?.role)
            case .promote, .demote:
                let current = try member()
                let (from, to): (MemberRole, MemberRole) = act.action == .promote ? (.member, .admin) : (.admin, .member)
                if current.role == .owner, act.action == .demote {
                    throw StoreError.invalidState("the owner is demoted by handing the group over: use transfer")
                }
                guard current.role == from else { return ModerationOutcome(changed: false, role: current.role) }
                try Self.setRole(to, of: act.target, in: group.id, connection)
                var roleChange = change(.roleChanged)
                roleChange.role = to
                try announce(context, group.id, member: act.target, change: roleChange, at: now, tellingOutsider: false)
                return ModerationOutcome(changed: true, role: to)
            case .transfer:
                return try transfer(act, in: group, target: target, context, at: now)
            }
        }
    }

    /// Makes the target the owner and every owner before an admin. A server administrator
    /// may name themselves without being a member: they take the group over, reading it
    /// from the announcement on.
    private func transfer(
        _ act: ModerationAct, in group: ConversationRecord, target: MemberState?, _ context: WriteContext,
        at now: Timestamp
    ) throws -> ModerationOutcome {
        let connection = context.connection
        if target?.role == .owner { return ModerationOutcome(changed: false, role: .owner) }
        let previous = try connection.rows(
            "SELECT user_id FROM members WHERE conversation_id = ?1 AND role = 'owner' ORDER BY user_id",
            group.id.rawValue, as: { UserID(rawValue: try $0.int(0)) })
        let change = MembershipChange(event: .roleChanged, notice: act.notice, by: act.by.id, role: .owner)
        if target == nil {
            guard act.target == act.by.id, act.by.isServerAdministrator else {
                throw StoreError.notFound(
                    "'\(try username(act.target, connection) ?? "they")' is not a member of group '\(group.name)'")
            }
            guard try addMember(context, group.id, act.target, role: .owner, restricted: false, change: change, at: now)
            else { throw StoreError.internalFailure("taking over \(group.id) found a member where none was") }
        } else {
            try Self.setRole(.owner, of: act.target, in: group.id, connection)
            try announce(context, group.id, member: act.target, change: change, at: now, tellingOutsider: false)
        }
        for owner in previous {
            try Self.setRole(.admin, of: owner, in: group.id, connection)
            try announce(
                context, group.id, member: owner,
                change: MembershipChange(event: .roleChanged, notice: nil, by: act.by.id, role: .admin), at: now,
                tellingOutsider: false)
        }
        return ModerationOutcome(changed: true, role: .owner)
    }

    private static func setRole(
        _ role: MemberRole, of user: UserID, in group: ConversationID, _ connection: Connection
    ) throws {
        try connection.execute(
            "UPDATE members SET role = ?1 WHERE conversation_id = ?2 AND user_id = ?3", role.rawValue, group.rawValue,
            user.rawValue)
    }

    public func bans(_ conversationID: ConversationID) async throws -> [BanRecord] {
        let now = clock().milliseconds
        return try await read { connection in
            try connection.rows(
                """
                \(Self.banQuery) WHERE b.conversation_id = ?1 AND (b.until IS NULL OR b.until > ?2)
                ORDER BY b.created_at, u.username COLLATE "C"
                """,
                conversationID.rawValue, now, as: { try Self.banRecord($0) })
        }
    }

    public func activeBan(_ conversationID: ConversationID, _ userID: UserID) async throws -> BanRecord? {
        let now = clock()
        return try await read { connection in try Self.activeBan(conversationID, userID, at: now, connection) }
    }

    /// The ban of `userID` in force at `now`, if any.
    static func activeBan(
        _ conversationID: ConversationID, _ userID: UserID, at now: Timestamp, _ connection: Connection
    ) throws -> BanRecord? {
        try connection.first(
            "\(banQuery) WHERE b.conversation_id = ?1 AND b.user_id = ?2 AND (b.until IS NULL OR b.until > ?3)",
            conversationID.rawValue, userID.rawValue, now.milliseconds, as: { try banRecord($0) })
    }

    private static var banQuery: String {
        """
        SELECT \(userColumns), b.conversation_id, bu.username, b.reason, b.until, b.created_at
        FROM bans b JOIN users u ON u.id = b.user_id LEFT JOIN users bu ON bu.id = b.banned_by
        """
    }

    private static func banRecord(_ row: Connection.Row) throws -> BanRecord {
        let at = userColumnCount
        let reason = try row.text(at + 2)
        return BanRecord(
            conversationID: ConversationID(rawValue: try row.int(at)), user: try userRecord(row).user,
            bannedBy: try row.optionalText(at + 1), reason: reason.isEmpty ? nil : reason,
            until: try row.optionalInt(at + 3).map { Timestamp(milliseconds: $0) },
            createdAt: try row.time(at + 4))
    }

    /// Where an acting user stands in a group, read in the write's transaction.
    func standing(_ actor: ActingUser, in conversationID: ConversationID, _ connection: Connection) throws
        -> GroupRules.Standing
    {
        GroupRules.Standing(
            role: try memberState(conversationID, actor.id, connection)?.role,
            isServerAdministrator: actor.isServerAdministrator)
    }
}
