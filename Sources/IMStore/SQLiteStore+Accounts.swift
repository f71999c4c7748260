import Foundation
import IMProtocol

extension SQLiteStore: AccountStore {
    public func createUser(_ new: NewUser) async throws -> UserRecord {
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            do {
                try connection.execute(
                    "INSERT INTO users (username, password_hash, nickname, is_bot, is_admin, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    new.username, new.passwordHash, new.nickname, new.isBot, new.isAdmin, now.milliseconds)
            } catch let error as SQLiteError where error.isUniqueViolation {
                throw StoreError.conflict("the username '\(new.username)' is taken")
            }
            let id = connection.lastInsertRowID
            guard let record = try connection.first(
                "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", id, as: { Self.userRecord($0) })
            else { throw StoreError.internalFailure("account \(id) vanished after insert") }
            return record
        }
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await database.read { connection in
            try connection.first(
                "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", id.rawValue, as: { Self.userRecord($0) })
        }
    }

    public func user(named username: String) async throws -> UserRecord? {
        try await database.read { connection in
            try connection.first(
                "SELECT \(Self.userColumns) FROM users u WHERE u.username = ?", username, as: { Self.userRecord($0) })
        }
    }

    public func users(named usernames: [String]) async throws -> [UserRecord] {
        try await database.read { connection in
            var records: [UserRecord] = []
            for name in Set(usernames) {
                if let record = try connection.first(
                    "SELECT \(Self.userColumns) FROM users u WHERE u.username = ?", name, as: { Self.userRecord($0) })
                {
                    records.append(record)
                }
            }
            return records
        }
    }

    public func listUsers(after: String?, limit: Int) async throws -> [UserRecord] {
        try await database.read { connection in
            try connection.rows(
                "SELECT \(Self.userColumns) FROM users u WHERE u.username > ? ORDER BY u.username LIMIT ?",
                after ?? "", limit, as: { Self.userRecord($0) })
        }
    }

    public func updateProfile(_ userID: UserID, _ update: ProfileUpdate) async throws -> UserRecord {
        return try await database.write { [self] context in
            try updateProfile(context, userID, update, at: clock())
        }
    }

    /// Applies a profile change inside a write job and tells the user's and their
    /// contacts' feeds; an uploaded avatar it replaces is deleted when nothing shows it.
    func updateProfile(_ context: SQLiteDatabase.WriteContext, _ userID: UserID, _ update: ProfileUpdate, at now: Timestamp)
        throws -> UserRecord
    {
        let connection = context.connection
        let previousAvatar = try connection.first(
            "SELECT avatar_url FROM users WHERE id = ?", userID.rawValue, as: { $0.text(0) })
        if let nickname = update.nickname {
            try connection.execute("UPDATE users SET nickname = ? WHERE id = ?", nickname, userID.rawValue)
        }
        if let avatar = update.avatarURL {
            try connection.execute("UPDATE users SET avatar_url = ? WHERE id = ?", avatar, userID.rawValue)
        }
        if let signature = update.signature {
            try connection.execute("UPDATE users SET signature = ? WHERE id = ?", signature, userID.rawValue)
        }
        if let attrs = update.attrs {
            let text = String(decoding: try JSONEncoder().encode(attrs), as: UTF8.self)
            try connection.execute("UPDATE users SET attrs = ? WHERE id = ?", text, userID.rawValue)
        }
        guard let record = try connection.first(
            "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", userID.rawValue, as: { Self.userRecord($0) })
        else { throw StoreError.notFound("no account \(userID)") }
        if let previousAvatar, previousAvatar != record.user.avatarURL {
            try deleteIfUnreferenced(path: previousAvatar, connection)
        }
        let watchers = try connection.rows(
            """
            SELECT user_id FROM contacts WHERE contact_id = ?1 AND user_id != ?1
                AND \(FeedVisibility.takesEventsSQL(user: "contacts.user_id", from: "?1"))
            """,
            userID.rawValue, as: { UserID(rawValue: $0.int(0)) })
        try appendUserEvent(
            context, type: .profileUpdated, users: [userID] + watchers, payload: EventPayload(user: record.user),
            at: now)
        return record
    }

    public func setPasswordHash(_ userID: UserID, _ hash: String, revokeTokens: Bool) async throws {
        try await database.write { [self] context in
            let now = clock()
            let changed = try context.connection.execute(
                "UPDATE users SET password_hash = ? WHERE id = ?", hash, userID.rawValue)
            guard changed == 1 else { throw StoreError.notFound("no account \(userID)") }
            if revokeTokens {
                try context.connection.execute(
                    "UPDATE tokens SET revoked_at = ?, revoked_reason = 'password_changed' WHERE user_id = ? AND revoked_at IS NULL",
                    now.milliseconds, userID.rawValue)
            }
        }
    }
}

extension SQLiteStore {
    public func setAdmin(_ userID: UserID, _ isAdmin: Bool) async throws {
        _ = try await database.write { context in
            try context.connection.execute("UPDATE users SET is_admin = ? WHERE id = ?", isAdmin, userID.rawValue)
        }
    }
}

extension SQLiteStore: TokenStore {
    static let tokenColumns =
        "t.id, t.user_id, t.device, t.created_at, t.expires_at, t.revoked_at, t.revoked_reason, t.last_used_at"
    static let tokenColumnCount: Int32 = 8

    static func tokenRecord(_ row: SQLiteRow, at start: Int32 = 0) -> TokenRecord {
        TokenRecord(
            id: row.int(start), userID: UserID(rawValue: row.int(start + 1)), device: row.optionalText(start + 2),
            createdAt: Timestamp(milliseconds: row.int(start + 3)),
            expiresAt: row.optionalInt(start + 4).map { Timestamp(milliseconds: $0) },
            revokedAt: row.optionalInt(start + 5).map { Timestamp(milliseconds: $0) },
            revokedReason: row.optionalText(start + 6),
            lastUsedAt: row.optionalInt(start + 7).map { Timestamp(milliseconds: $0) })
    }

    public func createToken(hash: [UInt8], userID: UserID, device: String?, expiresAt: Timestamp?)
        async throws -> (token: TokenRecord, replaced: [TokenRecord])
    {
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            try requireUser(userID, connection)
            var replaced: [TokenRecord] = []
            if let device {
                replaced = try connection.rows(
                    """
                    UPDATE tokens SET revoked_at = ?, revoked_reason = 'kicked_out'
                    WHERE user_id = ? AND device = ? AND revoked_at IS NULL
                    RETURNING id, user_id, device, created_at, expires_at, revoked_at, revoked_reason, last_used_at
                    """,
                    now.milliseconds, userID.rawValue, device, as: { Self.tokenRecord($0) })
            }
            try connection.execute(
                "INSERT INTO tokens (hash, user_id, device, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                hash, userID.rawValue, device, now.milliseconds, expiresAt?.milliseconds)
            let token = TokenRecord(
                id: connection.lastInsertRowID, userID: userID, device: device, createdAt: now, expiresAt: expiresAt)
            return (token, replaced)
        }
    }

    public func token(hash: [UInt8]) async throws -> (TokenRecord, UserRecord)? {
        try await database.read { connection in
            try connection.first(
                "SELECT \(Self.tokenColumns), \(Self.userColumns) FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?",
                hash, as: { (Self.tokenRecord($0), Self.userRecord($0, at: Self.tokenColumnCount)) })
        }
    }

    public func revokeToken(id: Int64, reason: String) async throws {
        _ = try await database.write { [self] context in
            let now = clock()
            try context.connection.execute(
                "UPDATE tokens SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL",
                now.milliseconds, reason, id)
        }
    }

    public func pruneTokens(before: Timestamp) async throws -> Int {
        try await database.write { context in
            try context.connection.execute(
                "DELETE FROM tokens WHERE (expires_at IS NOT NULL AND expires_at < ?) OR (revoked_at IS NOT NULL AND revoked_at < ?)",
                before.milliseconds, before.milliseconds)
        }
    }
}

extension SQLiteStore: ContactStore {
    public func contacts(of userID: UserID) async throws -> [User] {
        try await database.read { connection in
            try connection.rows(
                "SELECT \(Self.userColumns) FROM contacts k JOIN users u ON u.id = k.contact_id WHERE k.user_id = ? ORDER BY u.username",
                userID.rawValue, as: { Self.userRecord($0).user })
        }
    }

    public func addContact(_ userID: UserID, _ contactID: UserID) async throws -> Bool {
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            try requireUser(userID, connection)
            try requireUser(contactID, connection)
            let added = try connection.execute(
                "INSERT INTO contacts (user_id, contact_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                userID.rawValue, contactID.rawValue, now.milliseconds)
            guard added == 1 else { return false }
            let load = { (id: UserID) in
                try connection.first(
                    "SELECT \(Self.userColumns) FROM users u WHERE u.id = ?", id.rawValue, as: { Self.userRecord($0).user })
            }
            guard let owner = try load(userID), let contact = try load(contactID) else {
                throw StoreError.notFound("no such account")
            }
            // The owner's clients learn of the new contact; the contact learns who added them.
            try appendUserEvent(
                context, type: .contactAdded, users: [userID], payload: EventPayload(user: contact, by: owner.username),
                at: now)
            if contactID != userID, try takesEvents(contactID, from: userID, connection) {
                try appendUserEvent(
                    context, type: .contactAdded, users: [contactID], payload: EventPayload(user: owner, by: owner.username),
                    at: now)
            }
            return true
        }
    }

    public func removeContact(_ userID: UserID, _ contactID: UserID) async throws -> Bool {
        try await database.write { context in
            try context.connection.execute(
                "DELETE FROM contacts WHERE user_id = ? AND contact_id = ?", userID.rawValue, contactID.rawValue) == 1
        }
    }
}
