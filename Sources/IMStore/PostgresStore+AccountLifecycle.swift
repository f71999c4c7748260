import Foundation
import IMProtocol

/// What administrators and account owners do to logins and whole accounts: list and
/// end logins, suspend, delete (as `SQLiteStore+AccountLifecycle.swift`, with every
/// ending of logins logged for the other nodes).
extension PostgresStore {
    public func liveTokens(of userID: UserID, at now: Timestamp) async throws -> [TokenRecord] {
        try await read { connection in
            try connection.rows(
                """
                SELECT \(Self.tokenColumns) FROM tokens t
                WHERE t.user_id = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)
                ORDER BY t.created_at DESC, t.id DESC
                """,
                userID.rawValue, now.milliseconds, as: { try Self.tokenRecord($0) })
        }
    }

    public func recordTokenUse(_ uses: [Int64: Timestamp]) async throws {
        guard !uses.isEmpty else { return }
        let ids = Array(uses.keys)
        let times = ids.map { uses[$0]?.milliseconds ?? 0 }
        // Not a feed write: straight through a session, in one statement.
        _ = try await read { connection in
            try connection.execute(
                """
                UPDATE tokens t SET last_used_at = greatest(coalesce(t.last_used_at, 0), u.at)
                FROM unnest($1::int8[], $2::int8[]) AS u(id, at) WHERE t.id = u.id
                """,
                PostgresValue.integerArray(ids), PostgresValue.integerArray(times))
        }
    }

    public func setSuspended(_ userID: UserID, _ suspended: Bool) async throws -> [Int64] {
        try await write { [clock] context in
            let now = clock()
            guard try context.connection.execute(
                "UPDATE users SET suspended_at = $1 WHERE id = $2 AND deleted_at IS NULL",
                suspended ? now.milliseconds : nil, userID.rawValue) == 1
            else { throw StoreError.notFound("no account \(userID)") }
            guard suspended else { return [] }
            return try Self.revokeAll(of: userID, reason: "suspended", at: now, context)
        }
    }

    public func deleteUser(_ userID: UserID) async throws -> [Int64] {
        try await write { [self] context in
            let now = clock()
            let connection = context.connection
            guard let name = try connection.first(
                "SELECT username FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE", userID.rawValue,
                as: { try $0.text(0) })
            else { throw StoreError.notFound("no account \(userID)") }
            let revoked = try Self.revokeAll(of: userID, reason: "suspended", at: now, context)
            // Groups and rooms are told, in conversation order (the lock order of every
            // batch); direct conversations stay, so the other side keeps them.
            let shared = try connection.rows(
                """
                SELECT mb.conversation_id FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.user_id = $1 AND c.kind != 'direct' ORDER BY mb.conversation_id
                """,
                userID.rawValue, as: { ConversationID(rawValue: try $0.int(0)) })
            for conversation in shared {
                _ = try removeMember(
                    context, conversation, userID,
                    change: MembershipChange(event: .memberLeft, notice: "\(name)'s account was deleted"), at: now)
            }
            try connection.execute("DELETE FROM contacts WHERE user_id = $1 OR contact_id = $1", userID.rawValue)
            for table in ["invites", "join_requests", "bans", "bot_journal_records", "bot_journals", "telegram_bots"] {
                try connection.execute("DELETE FROM \(table) WHERE user_id = $1", userID.rawValue)
            }
            try connection.execute("DELETE FROM blocks WHERE user_id = $1 OR blocked_id = $1", userID.rawValue)
            try connection.execute("DELETE FROM media WHERE owner_id = $1", userID.rawValue)
            // '~' is not allowed in names people register: the name is free, this one never clashes.
            try connection.execute(
                """
                UPDATE users SET username = $1, nickname = 'deleted account', avatar_url = '', signature = '',
                    attrs = '{}', password_hash = '!', is_admin = false, suspended_at = $2, deleted_at = $2
                WHERE id = $3
                """,
                SQLiteStore.deletedName(userID), now.milliseconds, userID.rawValue)
            return revoked
        }
    }

    /// Revokes every live login of an account and logs it for the other nodes; returns
    /// their ids.
    static func revokeAll(of userID: UserID, reason: String, at now: Timestamp, _ context: PostgresWriteContext)
        throws -> [Int64]
    {
        let revoked = try context.connection.rows(
            "UPDATE tokens SET revoked_at = $1, revoked_reason = $2 WHERE user_id = $3 AND revoked_at IS NULL RETURNING id",
            now.milliseconds, reason, userID.rawValue, as: { try $0.int(0) })
        // Also when none was live: a node may still hold a login in its cache whose end it
        // has not heard of, and the account's state changed.
        context.batch.revocations.append(.user(userID))
        return revoked
    }
}
