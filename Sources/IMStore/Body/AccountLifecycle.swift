import Foundation
import IMProtocol

/// What administrators and account owners do to logins and whole accounts: list and
/// end logins, suspend, delete. Every ending of logins is logged (`logRevocation`: the
/// other PostgreSQL nodes drop them from their caches). Recording when logins were last
/// used is each engine's own (`recordTokenUse`).
extension StoreEngine {
    public func liveTokens(of userID: UserID, at now: Timestamp) async throws -> [TokenRecord] {
        try await read { connection in
            try connection.rows(
                """
                SELECT \(Self.tokenColumns) FROM tokens t
                WHERE t.user_id = ?1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?2)
                ORDER BY t.created_at DESC, t.id DESC
                """,
                userID.rawValue, now.milliseconds, as: { try Self.tokenRecord($0) })
        }
    }

    public func setSuspended(_ userID: UserID, _ suspended: Bool) async throws -> [Int64] {
        try await write { [self] context in
            let now = clock()
            guard try context.connection.execute(
                "UPDATE users SET suspended_at = ?1 WHERE id = ?2 AND deleted_at IS NULL",
                suspended ? now.milliseconds : nil, userID.rawValue) == 1
            else { throw StoreError.notFound("no account \(userID)") }
            guard suspended else { return [] }
            return try revokeAll(of: userID, reason: "suspended", at: now, context)
        }
    }

    public func deleteUser(_ userID: UserID) async throws -> [Int64] {
        try await write { [self] context in
            let now = clock()
            let connection = context.connection
            guard let name = try connection.first(
                "SELECT username FROM users WHERE id = ?1 AND deleted_at IS NULL FOR UPDATE", userID.rawValue,
                as: { try $0.text(0) })
            else { throw StoreError.notFound("no account \(userID)") }
            let revoked = try revokeAll(of: userID, reason: "suspended", at: now, context)
            // Groups and rooms are told, in conversation order (the lock order of every
            // batch); direct conversations stay, so the other side keeps them.
            let shared = try connection.rows(
                """
                SELECT mb.conversation_id FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.user_id = ?1 AND c.kind != 'direct' ORDER BY mb.conversation_id
                """,
                userID.rawValue, as: { ConversationID(rawValue: try $0.int(0)) })
            for conversation in shared {
                _ = try removeMember(
                    context, conversation, userID,
                    change: MembershipChange(event: .memberLeft, notice: "\(name)'s account was deleted"), at: now)
            }
            try connection.execute("DELETE FROM contacts WHERE user_id = ?1 OR contact_id = ?1", userID.rawValue)
            for table in ["invites", "join_requests", "bans", "bot_journal_records", "bot_journals", "telegram_bots"] {
                try connection.execute("DELETE FROM \(table) WHERE user_id = ?1", userID.rawValue)
            }
            try connection.execute("DELETE FROM blocks WHERE user_id = ?1 OR blocked_id = ?1", userID.rawValue)
            try connection.execute("DELETE FROM media WHERE owner_id = ?1", userID.rawValue)
            // '~' is not allowed in names people register: the name is free, this one never clashes.
            try connection.execute(
                """
                UPDATE users SET username = ?1, nickname = 'deleted account', avatar_url = '', signature = '',
                    attrs = '{}', password_hash = '!', is_admin = false, suspended_at = ?2, deleted_at = ?2
                WHERE id = ?3
                """,
                UserRecord.deletedName(userID), now.milliseconds, userID.rawValue)
            usernameChanged(userID, to: UserRecord.deletedName(userID))
            return revoked
        }
    }

    /// Revokes every live login of an account and logs it; returns their ids.
    func revokeAll(of userID: UserID, reason: String, at now: Timestamp, _ context: WriteContext)
        throws -> [Int64]
    {
        let revoked = try context.connection.rows(
            "UPDATE tokens SET revoked_at = ?1, revoked_reason = ?2 WHERE user_id = ?3 AND revoked_at IS NULL RETURNING id",
            now.milliseconds, reason, userID.rawValue, as: { try $0.int(0) })
        // Also when none was live: a node may still hold a login in its cache whose end it
        // has not heard of, and the account's state changed.
        logRevocation(.user(userID), context)
        return revoked
    }
}

