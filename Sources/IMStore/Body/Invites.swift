import IMProtocol

/// Invitations, and joining a group by its policy. Every job locks the group's row first,
/// so an invitation, a ban and a join of the same group on two nodes happen one after the
/// other. (Join requests: `JoinRequests.swift`.)
extension StoreEngine {
    public func invite(_ userID: UserID, to conversationID: ConversationID, by inviter: ActingUser, notice: String)
        async throws -> Bool
    {
        try await write(lockOrder: conversationID) { [self] context in
            let now = clock()
            let connection = context.connection
            let group = try Self.record(conversationID, connection, forUpdate: true)
            try GroupRules.require(.admin, actor: try standing(inviter, in: group.id, connection), to: "invite people")
            try Self.requireUser(userID, connection)
            if try memberState(group.id, userID, connection) != nil {
                throw StoreError.conflict("'\(try username(userID, connection) ?? "they")' is a member already")
            }
            if try Self.activeBan(group.id, userID, at: now, connection) != nil {
                throw StoreError.invalidState(
                    "'\(try username(userID, connection) ?? "they")' is banned from this group: unban them first")
            }
            guard try connection.execute(
                """
                INSERT INTO invites (conversation_id, user_id, invited_by, created_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT DO NOTHING
                """,
                group.id.rawValue, userID.rawValue, inviter.id.rawValue, now.milliseconds) == 1
            else { return false }
            try announce(
                context, group.id, member: userID,
                change: MembershipChange(event: .memberInvited, notice: notice, by: inviter.id), at: now,
                tellingOutsider: true)
            return true
        }
    }

    public func isInvited(_ userID: UserID, to conversationID: ConversationID) async throws -> Bool {
        try await read { connection in
            try connection.first(
                "SELECT 1 FROM invites WHERE conversation_id = ?1 AND user_id = ?2", conversationID.rawValue,
                userID.rawValue, as: { _ in true }) != nil
        }
    }

    public func invitations(to conversationID: ConversationID) async throws -> [GroupInvite] {
        try await read { connection in
            try connection.rows(
                "\(Self.invitationQuery) WHERE i.conversation_id = ?1 ORDER BY i.created_at, u.username COLLATE \"C\"",
                conversationID.rawValue, as: { try Self.invitation($0) })
        }
    }

    public func invitations(for userID: UserID) async throws -> [GroupInvite] {
        try await read { connection in
            try connection.rows(
                "\(Self.invitationQuery) WHERE i.user_id = ?1 ORDER BY i.created_at, c.name COLLATE \"C\"",
                userID.rawValue, as: { try Self.invitation($0) })
        }
    }

    public func revokeInvitation(
        of userID: UserID, to conversationID: ConversationID, by actor: ActingUser, notice: String
    ) async throws -> Bool {
        try await write(lockOrder: conversationID) { [self] context in
            let connection = context.connection
            _ = try Self.record(conversationID, connection, forUpdate: true)
            // The invited may decline; otherwise it is the admins' to withdraw.
            if actor.id != userID {
                try GroupRules.require(
                    .admin, actor: try standing(actor, in: conversationID, connection), to: "withdraw invitations")
            }
            guard try connection.execute(
                "DELETE FROM invites WHERE conversation_id = ?1 AND user_id = ?2", conversationID.rawValue,
                userID.rawValue) == 1
            else { return false }
            try announce(
                context, conversationID, member: userID,
                change: MembershipChange(event: .inviteRevoked, notice: notice, by: actor.id), at: clock(),
                tellingOutsider: true)
            return true
        }
    }

    public func join(_ conversationID: ConversationID, _ userID: UserID, change: MembershipChange) async throws
        -> JoinOutcome
    {
        try await write(lockOrder: conversationID) { [self] context in
            let now = clock()
            let connection = context.connection
            let conversation = try Self.record(conversationID, connection, forUpdate: true)
            if try memberState(conversationID, userID, connection) != nil { return .alreadyMember }
            guard conversation.kind == .group else {
                _ = try addMember(context, conversationID, userID, role: .member, restricted: false, change: change, at: now)
                return .joined
            }
            if let ban = try Self.activeBan(conversationID, userID, at: now, connection) {
                return .banned(until: ban.until)
            }
            // An invitation opens every group, and is used up.
            let invited =
                try connection.execute(
                    "DELETE FROM invites WHERE conversation_id = ?1 AND user_id = ?2", conversationID.rawValue,
                    userID.rawValue) == 1
            var change = change
            switch (conversation.joinPolicy, invited) {
            case (_, true): change.via = .invite
            case (.open, false): change.via = .open
            case (.invite, false): return .notInvited
            case (.approval, false):
                try requestToJoin(context, conversationID, userID, at: now)
                return .requested
            }
            // Once in, a request of theirs (made before an invitation came) has nothing to wait for.
            try connection.execute(
                "DELETE FROM join_requests WHERE conversation_id = ?1 AND user_id = ?2", conversationID.rawValue,
                userID.rawValue)
            _ = try addMember(
                context, conversationID, userID, role: .member, restricted: conversation.newMembers == .restricted,
                change: change, at: now)
            return .joined
        }
    }

    private static var invitationQuery: String {
        """
        SELECT c.name, u.username, coalesce(iu.username, ''), i.created_at
        FROM invites i JOIN conversations c ON c.id = i.conversation_id JOIN users u ON u.id = i.user_id
        LEFT JOIN users iu ON iu.id = i.invited_by
        """
    }

    private static func invitation(_ row: Connection.Row) throws -> GroupInvite {
        GroupInvite(
            group: try row.text(0), user: try row.text(1), invitedBy: try row.text(2),
            createdAt: try row.time(3))
    }
}
