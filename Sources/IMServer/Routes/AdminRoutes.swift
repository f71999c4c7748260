import HTTPServer
import IMProtocol
import IMStore

/// Account administration (`switchboard user add|list|passwd`).
enum AdminRoutes {
    static let routes: [Route] = [
        Route(.get, "/v1/admin/users", access: .admin, handler: list),
        Route(.post, "/v1/admin/users", access: .admin, handler: create),
        Route(.put, "/v1/admin/users/:name/password", access: .admin, handler: setPassword),
    ]

    static func list(_ context: RequestContext) async throws -> Response {
        let limit = try context.queryInt("limit", in: 1...500, default: 100) ?? 100
        let records = try await context.core.store.listUsers(after: context.request.query("after"), limit: limit)
        let next = records.count == limit ? records.last?.user.username : nil
        let users = records.map { AdminUser(user: $0.user, admin: $0.isAdmin) }
        return try .json(AdminUserList(users: users, next: next), encoder: context.core.encoder)
    }

    static func create(_ context: RequestContext) async throws -> Response {
        let body = try context.decode(AdminCreateUser.self)
        let username = try Validate.username(body.username)
        try Validate.password(body.password)
        let nickname = body.nickname ?? username
        try Validate.text(nickname, field: "nickname", length: Limits.nicknameLength)
        let record = try await AccountRoutes.createAccount(
            context.core, username: username, password: body.password, nickname: nickname,
            isBot: body.bot ?? false, isAdmin: body.admin ?? false)
        return try .json(AdminUser(user: record.user, admin: record.isAdmin), status: 201, encoder: context.core.encoder)
    }

    static func setPassword(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let record = try await UserRoutes.existingUser(context, try context.parameter("name"))
        let body = try context.decode(AdminSetPassword.self)
        try Validate.password(body.password)
        let hash = try await core.hashing.hash(body.password)
        try await core.store.setPasswordHash(record.id, hash, revokeTokens: true)
        core.authenticator.invalidate(userID: record.id)
        core.hub.wake(userID: record.id)
        return .noContent
    }
}
