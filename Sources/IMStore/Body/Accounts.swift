import Foundation
import IMProtocol

/// Accounts, logins and contacts (`AccountStore`, `TokenStore`, `ContactStore`).
extension StoreEngine {
    public func createUser(_ new: NewUser) async throws -> UserRecord {
        try await write { [self] context in
            let connection = context.connection
            let id: Int64?
            do {
                id = try connection.first(
                    """
                    INSERT INTO users (username, password_hash, nickname, is_bot, is_admin, created_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id
                    """,
                    new.username, new.passwordHash, new.nickname, new.isBot, new.isAdmin, clock().milliseconds,
                    as: { try $0.int(0) })
            } catch where Self.isUniqueViolation(error) {
                throw StoreError.conflict("the username '\(new.username)' is taken")
            }
            guard let id, let record = try connection.first(
                "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?1", id, as: { try Self.userRecord($0) })
            else { throw StoreError.internalFailure("the new account vanished after its insert") }
            return record
        }
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?1", id.rawValue, as: { try Self.userRecord($0) })
        }
    }

    public func user(named username: String) async throws -> UserRecord? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.userColumns) FROM users u WHERE u.username = ?1", username, as: { try Self.userRecord($0) })
        }
    }

    public func users(named usernames: [String]) async throws -> [UserRecord] {
        guard !usernames.isEmpty else { return [] }
        return try await read { connection in
            try connection.rows(
                "SELECT \(Self.userColumns) FROM users u WHERE u.username IN (SELECT value FROM \(Self.textRows("?1")))",
                Self.textList(Array(Set(usernames))), as: { try Self.userRecord($0) })
        }
    }

    public func listUsers(after: String?, limit: Int) async throws -> [UserRecord] {
        try await read { connection in
            // Byte order on both engines, whatever PostgreSQL's locale.
            try connection.rows(
                """
                SELECT \(Self.userColumns) FROM users u WHERE u.username COLLATE "C" > ?1
                ORDER BY u.username COLLATE "C" LIMIT ?2
                """,
                after ?? "", limit, as: { try Self.userRecord($0) })
        }
    }

    public func updateProfile(_ userID: UserID, _ update: ProfileUpdate) async throws -> UserRecord {
        try await write { [self] context in try updateProfile(context, userID, update, at: clock()) }
    }

    /// Applies a profile change inside a write job and tells the user's and their
    /// contacts' feeds; an uploaded avatar it replaces is deleted when nothing shows it.
    func updateProfile(_ context: WriteContext, _ userID: UserID, _ update: ProfileUpdate, at now: Timestamp)
        throws -> UserRecord
    {
        let connection = context.connection
        let attrs = try update.attrs.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        // The row is locked first (on PostgreSQL), so the avatar replaced is the one read.
        guard let previousAvatar = try connection.first(
            "SELECT avatar_url FROM users WHERE id = ?1 FOR UPDATE", userID.rawValue, as: { try $0.text(0) })
        else { throw StoreError.notFound("no account \(userID)") }
        try connection.execute(
            """
            UPDATE users SET nickname = coalesce(?2, nickname), avatar_url = coalesce(?3, avatar_url),
                signature = coalesce(?4, signature), attrs = coalesce(?5, attrs)
            WHERE id = ?1
            """,
            userID.rawValue, update.nickname, update.avatarURL, update.signature, attrs)
        guard let record = try connection.first(
            "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?1", userID.rawValue, as: { try Self.userRecord($0) })
        else { throw StoreError.notFound("no account \(userID)") }
        if previousAvatar != record.user.avatarURL {
            try Self.deleteIfUnreferenced(path: previousAvatar, connection)
        }
        let watchers = try connection.rows(
            """
            SELECT user_id FROM contacts WHERE contact_id = ?1 AND user_id != ?1
                AND \(FeedVisibility.takesEventsSQL(user: "contacts.user_id", from: "?1"))
            """,
            userID.rawValue, as: { UserID(rawValue: try $0.int(0)) })
        try appendUserEvent(
            context, type: .profileUpdated, users: [userID] + watchers, conversationID: nil,
            payload: EventPayload(user: record.user), at: now)
        return record
    }

    public func setPasswordHash(_ userID: UserID, _ hash: String, revokeTokens: Bool) async throws {
        try await write { [self] context in
            let connection = context.connection
            guard try connection.execute("UPDATE users SET password_hash = ?1 WHERE id = ?2", hash, userID.rawValue) == 1
            else { throw StoreError.notFound("no account \(userID)") }
            if revokeTokens {
                try connection.execute(
                    "UPDATE tokens SET revoked_at = ?1, revoked_reason = 'password_changed' WHERE user_id = ?2 AND revoked_at IS NULL",
                    clock().milliseconds, userID.rawValue)
                logRevocation(.user(userID), context)
            }
        }
    }

    public func setAdmin(_ userID: UserID, _ isAdmin: Bool) async throws {
        _ = try await write { context in
            try context.connection.execute("UPDATE users SET is_admin = ?1 WHERE id = ?2", isAdmin, userID.rawValue)
        }
    }
}

extension StoreEngine {
    public func createToken(hash: [UInt8], userID: UserID, device: String?, expiresAt: Timestamp?)
        async throws -> (token: TokenRecord, replaced: [TokenRecord])
    {
        try await write { [self] context in
            let now = clock()
            let connection = context.connection
            try Self.requireUser(userID, connection)
            var replaced: [TokenRecord] = []
            if let device {
                replaced = try connection.rows(
                    """
                    UPDATE tokens SET revoked_at = ?1, revoked_reason = 'kicked_out'
                    WHERE user_id = ?2 AND device = ?3 AND revoked_at IS NULL
                    RETURNING id, user_id, device, created_at, expires_at, revoked_at, revoked_reason, last_used_at
                    """,
                    now.milliseconds, userID.rawValue, device, as: { try Self.tokenRecord($0) })
                for token in replaced { logRevocation(.token(token.id), context) }
            }
            guard let id = try connection.first(
                "INSERT INTO tokens (hash, user_id, device, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
                hash, userID.rawValue, device, now.milliseconds, expiresAt?.milliseconds, as: { try $0.int(0) })
            else { throw StoreError.internalFailure("INSERT INTO tokens returned nothing") }
            let token = TokenRecord(id: id, userID: userID, device: device, createdAt: now, expiresAt: expiresAt)
            return (token, replaced)
        }
    }

    public func token(hash: [UInt8]) async throws -> (TokenRecord, UserRecord)? {
        try await read { connection in
            try connection.first(
                "SELECT \(Self.tokenColumns), \(Self.userColumns) FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?1",
                hash, as: { (try Self.tokenRecord($0), try Self.userRecord($0, at: Self.tokenColumnCount)) })
        }
    }

    public func revokeToken(id: Int64, reason: String) async throws {
        try await write { [self] context in
            let revoked = try context.connection.execute(
                "UPDATE tokens SET revoked_at = ?1, revoked_reason = ?2 WHERE id = ?3 AND revoked_at IS NULL",
                clock().milliseconds, reason, id)
            if revoked > 0 { logRevocation(.token(id), context) }
        }
    }

    public func pruneTokens(before: Timestamp) async throws -> Int {
        try await write { [self] context in
            let connection = context.connection
            try pruneRevocations(before: before, context)
            return try connection.execute(
                "DELETE FROM tokens WHERE (expires_at IS NOT NULL AND expires_at < ?1) OR (revoked_at IS NOT NULL AND revoked_at < ?1)",
                before.milliseconds)
        }
    }
}

extension StoreEngine {
    public func contacts(of userID: UserID) async throws -> [User] {
        try await read { connection in
            try connection.rows(
                """
                SELECT \(Self.userColumns) FROM contacts k JOIN users u ON u.id = k.contact_id WHERE k.user_id = ?1
                ORDER BY u.username COLLATE "C"
                """,
                userID.rawValue, as: { try Self.userRecord($0).user })
        }
    }

    public func addContact(_ userID: UserID, _ contactID: UserID) async throws -> Bool {
        try await write { [self] context in
            let now = clock()
            let connection = context.connection
            let load = { (id: UserID) in
                try connection.first(
                    "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?1", id.rawValue, as: { try Self.userRecord($0).user })
            }
            guard let owner = try load(userID) else { throw StoreError.notFound("no account \(userID)") }
            guard let contact = try load(contactID) else { throw StoreError.notFound("no account \(contactID)") }
            let added = try connection.execute(
                "INSERT INTO contacts (user_id, contact_id, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
                userID.rawValue, contactID.rawValue, now.milliseconds)
            guard added == 1 else { return false }
            // The owner's clients learn of the new contact; the contact learns who added them.
            try appendUserEvent(
                context, type: .contactAdded, users: [userID], conversationID: nil,
                payload: EventPayload(user: contact, by: owner.username), at: now)
            if contactID != userID, try Self.takesEvents(contactID, from: userID, connection) {
                try appendUserEvent(
                    context, type: .contactAdded, users: [contactID], conversationID: nil,
                    payload: EventPayload(user: owner, by: owner.username), at: now)
            }
            return true
        }
    }

    public func removeContact(_ userID: UserID, _ contactID: UserID) async throws -> Bool {
        try await write { context in
            try context.connection.execute(
                "DELETE FROM contacts WHERE user_id = ?1 AND contact_id = ?2", userID.rawValue, contactID.rawValue) == 1
        }
    }
}
