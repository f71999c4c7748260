import Foundation
import IMProtocol

/// What administrators and account owners do to logins and whole accounts: list and
/// end logins, suspend, delete.
extension SQLiteStore {
    public func liveTokens(of userID: UserID, at now: Timestamp) async throws -> [TokenRecord] {
        try await database.read { connection in
            try connection.rows(
                """
                SELECT \(Self.tokenColumns) FROM tokens t
                WHERE t.user_id = ? AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)
                ORDER BY t.created_at DESC, t.id DESC
                """,
                userID.rawValue, now.milliseconds, as: { Self.tokenRecord($0) })
        }
    }

    public func recordTokenUse(_ uses: [Int64: Timestamp]) async throws {
        guard !uses.isEmpty else { return }
        try await database.write { context in
            for (id, at) in uses {
                try context.connection.execute(
                    "UPDATE tokens SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?", at.milliseconds, id)
            }
        }
    }

    public func setSuspended(_ userID: UserID, _ suspended: Bool) async throws -> [Int64] {
        try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            guard try connection.execute(
                "UPDATE users SET suspended_at = ? WHERE id = ? AND deleted_at IS NULL",
                suspended ? now.milliseconds : nil, userID.rawValue) == 1
            else { throw StoreError.notFound("no account \(userID)") }
            guard suspended else { return [] }
            return try Self.revokeAll(of: userID, reason: "suspended", at: now, connection)
        }
    }

    public func deleteUser(_ userID: UserID) async throws -> [Int64] {
        try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            guard let name = try connection.first(
                "SELECT username FROM users WHERE id = ? AND deleted_at IS NULL", userID.rawValue, as: { $0.text(0) })
            else { throw StoreError.notFound("no account \(userID)") }
            let revoked = try Self.revokeAll(of: userID, reason: "suspended", at: now, connection)
            // Groups and rooms are told; direct conversations stay, so the other side keeps them.
            let shared = try connection.rows(
                """
                SELECT mb.conversation_id FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                WHERE mb.user_id = ? AND c.kind != 'direct'
                """,
                userID.rawValue, as: { ConversationID(rawValue: $0.int(0)) })
            for conversation in shared {
                _ = try removeMember(
                    context, conversation, userID,
                    change: MembershipChange(event: .memberLeft, notice: "\(name)'s account was deleted"), at: now)
            }
            try connection.execute(
                "DELETE FROM contacts WHERE user_id = ?1 OR contact_id = ?1", userID.rawValue)
            for table in ["invites", "join_requests", "bans", "bot_journal_records", "bot_journals", "telegram_bots"] {
                try connection.execute("DELETE FROM \(table) WHERE user_id = ?", userID.rawValue)
            }
            try connection.execute("DELETE FROM blocks WHERE user_id = ?1 OR blocked_id = ?1", userID.rawValue)
            try connection.execute("DELETE FROM media WHERE owner_id = ?", userID.rawValue)
            // '~' is not allowed in names people register: the name is free, this one never clashes.
            let placeholder = Self.deletedName(userID)
            try connection.execute(
                """
                UPDATE users SET username = ?, nickname = 'deleted account', avatar_url = '', signature = '',
                    attrs = '{}', password_hash = '!', is_admin = 0, suspended_at = ?, deleted_at = ?
                WHERE id = ?
                """,
                placeholder, now.milliseconds, now.milliseconds, userID.rawValue)
            usernames.withLock { $0[userID] = placeholder }
            return revoked
        }
    }

    /// The name a deleted account keeps: `deleted~<id>`.
    public static func deletedName(_ userID: UserID) -> String { "deleted~\(userID.rawValue)" }

    /// Revokes every live login of an account; returns their ids.
    static func revokeAll(of userID: UserID, reason: String, at now: Timestamp, _ connection: SQLiteConnection)
        throws -> [Int64]
    {
        try connection.rows(
            "UPDATE tokens SET revoked_at = ?, revoked_reason = ? WHERE user_id = ? AND revoked_at IS NULL RETURNING id",
            now.milliseconds, reason, userID.rawValue, as: { $0.int(0) })
    }
}
