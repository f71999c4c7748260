import HTTPServer
import IMProtocol
import IMStore

/// Account administration (`switchboard user ...`).
enum AdminRoutes {
    static let routes: [Route] = [
        Route(.get, "/v1/admin/users", access: .admin, handler: list),
        Route(.post, "/v1/admin/users", access: .admin, handler: create),
        Route(.put, "/v1/admin/users/:name/password", access: .admin, handler: setPassword),
        Route(.post, "/v1/admin/users/:name/suspend", access: .admin) { try await setSuspended($0, true) },
        Route(.post, "/v1/admin/users/:name/unsuspend", access: .admin) { try await setSuspended($0, false) },
        Route(.delete, "/v1/admin/users/:name", access: .admin, handler: delete),
        Route(.post, "/v1/admin/users/:name/telegram-token", access: .admin, handler: issueTelegramToken),
        Route(.delete, "/v1/admin/users/:name/telegram-token", access: .admin, handler: revokeTelegramToken),
    ]

    static func list(_ context: RequestContext) async throws -> Response {
        let limit = try context.queryInt("limit", in: 1...500, default: 100) ?? 100
        let records = try await context.core.store.listUsers(after: context.request.query("after"), limit: limit)
        let next = records.count == limit ? records.last?.user.username : nil
        let users = records.filter { $0.deletedAt == nil }.map(adminUser)
        return try .json(AdminUserList(users: users, next: next), encoder: context.core.encoder)
    }

    static func create(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let body = try context.decode(AdminCreateUser.self)
        let account = try NewAccount(username: body.username, password: body.password, nickname: body.nickname)
        let record = try await account.create(
            in: core.store, hash: { try await core.hashing.hash($0, for: context.client) }, isBot: body.bot ?? false,
            isAdmin: body.admin ?? false)
        var created = adminUser(record)
        // A bot speaks the Telegram Bot API with a token of Telegram's shape (docs/telegram.md).
        if record.user.isBot { created.telegramToken = try await TelegramToken.issue(for: record, in: core.store).0 }
        return try .json(created, status: 201, encoder: core.encoder)
    }

    /// A new Telegram token for a bot account; the one before it ends at once.
    static func issueTelegramToken(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let record = try await UserRoutes.existingUser(context, try context.parameter("name"))
        let (token, replaced) = try await TelegramToken.issue(for: record, in: core.store)
        endLogins(core, replaced)
        // A webhook kept from before (a suspension ended its token) is posted to again.
        core.telegramWebhooks.changed(record.id)
        var answer = adminUser(record)
        answer.telegramToken = token
        return try .json(answer, status: 201, encoder: core.encoder)
    }

    /// Ends a bot's Telegram token (404 when it has none).
    static func revokeTelegramToken(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let record = try await UserRoutes.existingUser(context, try context.parameter("name"))
        let ended = try await TelegramToken.revoke(for: record.id, in: core.store, now: core.now())
        guard !ended.isEmpty else { throw APIError(.notFound, "'\(record.user.username)' has no Telegram token") }
        endLogins(core, ended)
        core.telegramWebhooks.changed(record.id)
        return .noContent
    }

    /// Forgets ended logins and answers their parked polls.
    private static func endLogins(_ core: ServerServices, _ tokens: [TokenRecord]) {
        guard !tokens.isEmpty else { return }
        core.authenticator.invalidate(tokenIDs: Set(tokens.map(\.id)))
        for token in tokens { core.hub.end(tokenID: token.id, with: .loggedOut) }
    }

    static func setPassword(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let record = try await UserRoutes.existingUser(context, try context.parameter("name"))
        let body = try context.decode(AdminSetPassword.self)
        try Validate.password(body.password)
        let hash = try await core.hashing.hash(body.password, for: context.client)
        try await core.store.setPasswordHash(record.id, hash, revokeTokens: true)
        core.authenticator.invalidate(userID: record.id)
        core.hub.wake(userID: record.id)
        return .noContent
    }

    static func adminUser(_ record: UserRecord) -> AdminUser {
        AdminUser(user: record.user, admin: record.isAdmin, suspended: record.suspendedAt != nil)
    }

    /// Suspending ends every login at once: cached sessions are dropped and parked polls
    /// woken, and they find their login revoked (401 `suspended`).
    static func setSuspended(_ context: RequestContext, _ suspended: Bool) async throws -> Response {
        let core = context.core
        let record = try await target(context)
        _ = try await core.store.setSuspended(record.id, suspended)
        if suspended { endLogins(core, of: record.id) }
        guard let updated = try await core.store.user(id: record.id) else { throw APIError(.notFound, "no user '\(record.user.username)'") }
        return try .json(adminUser(updated), encoder: core.encoder)
    }

    static func delete(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let record = try await target(context)
        _ = try await core.store.deleteUser(record.id)
        endLogins(core, of: record.id)
        core.directory.forget(username: record.user.username)
        return .noContent
    }

    /// The account named in the path; an administrator cannot suspend or delete their own.
    private static func target(_ context: RequestContext) async throws -> UserRecord {
        let record = try await UserRoutes.existingUser(context, try context.parameter("name"))
        if record.id == (try context.caller).userID {
            throw APIError(.conflict, "you cannot suspend or delete your own account: ask another administrator")
        }
        return record
    }

    private static func endLogins(_ core: ServerServices, of userID: UserID) {
        core.authenticator.invalidate(userID: userID)
        core.hub.wake(userID: userID)
    }
}
