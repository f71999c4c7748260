import Foundation
import HTTPServer
import IMProtocol
import IMStore
import SwitchboardCrypto

/// Registration, login, logout and the caller's own profile.
enum AccountRoutes {
    static let routes: [Route] = [
        Route(.post, "/v1/register", access: .open, handler: register),
        Route(.post, "/v1/login", access: .open, handler: login),
        Route(.post, "/v1/logout", access: .user, handler: logout),
        Route(.get, "/v1/me", access: .user, handler: me),
        Route(.patch, "/v1/me", access: .user, handler: updateMe),
        Route(.put, "/v1/me/password", access: .user, handler: changePassword),
        Route(.put, "/v1/me/avatar", access: .user, bodyLimit: Limits.avatarBytes, handler: uploadAvatar),
        Route(.get, "/v1/me/sessions", access: .user, handler: sessions),
        Route(.delete, "/v1/me/sessions/:id", access: .user, handler: endSession),
    ]

    /// Anyone may register a person's account while registration is open. Nothing here
    /// grants more: administrators are made on the data folder (`switchboard user add
    /// --admin`), bot accounts by administrators.
    static func register(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let body = try context.decode(RegisterRequest.self)
        guard core.configuration.openRegistration else {
            throw APIError(.forbidden, "registration is closed on this server: ask an administrator for an account")
        }
        let account = try NewAccount(username: body.username, password: body.password, nickname: body.nickname)
        if let device = body.device { try Validate.text(device, field: "device", length: Limits.deviceLength) }
        let client = context.client
        try core.spendRegistration(client: client)
        // A taken name answers 409 first, as for anyone: a runner whose bot account an
        // administrator made then logs in instead.
        try await NewAccount.requireFree(account.username, in: core.store)
        if body.bot == true {
            throw APIError(
                .forbidden,
                "bot accounts are made by administrators: 'switchboard user add --bot \(account.username)' "
                    + "(or POST /v1/admin/users with bot: true)", reason: "bot_needs_administrator")
        }
        let record = try await account.create(
            in: core.store, hash: { try await core.hashing.hash($0, for: client) }, isBot: false, isAdmin: false)
        let auth = try await issueToken(core, for: record, device: body.device)
        return try .json(auth, status: 201, encoder: core.encoder)
    }

    /// A new login for an account; a same-device login elsewhere is ended, and so are the
    /// oldest past the account's cap of live logins (`LoginCaps`).
    static func issueToken(_ core: ServerServices, for record: UserRecord, device: String?) async throws -> AuthResponse {
        let token = "sbt_" + SecureRandom.token(bits: 256)
        let expiresAt = record.user.isBot ? nil : core.now().adding(seconds: core.configuration.tokenLifetime)
        let (created, replaced) = try await core.store.createToken(
            hash: Authenticator.hash(token), userID: record.id, device: device, expiresAt: expiresAt)
        try await core.capLogins(of: record, newest: created)
        if !replaced.isEmpty {
            core.authenticator.invalidate(tokenIDs: Set(replaced.map(\.id)))
            for old in replaced {
                core.hub.kick(tokenID: old.id, reason: Authenticator.revoked(old).message)
            }
        }
        return AuthResponse(user: record.user, token: token, expiresAt: expiresAt)
    }

    static func login(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let body = try context.decode(LoginRequest.self)
        // A name no account can have is refused before it keys any throttle record.
        let username = try Validate.username(body.username)
        if let device = body.device { try Validate.text(device, field: "device", length: Limits.deviceLength) }
        let client = context.client
        guard let record = try await checkPassword(
            core, body.password, username: username, client: client,
            account: { try await core.store.user(named: username) })
        else {
            core.metrics.loginFailures.add(1, ordering: .relaxed)
            throw APIError(.unauthorized, "wrong username or password", reason: "bad_credentials")
        }
        if record.suspendedAt != nil { throw Authenticator.suspended }
        if core.hashing.hasher.needsRehash(record.passwordHash),
            let upgraded = try? await core.hashing.hash(body.password, for: client)
        {
            try await core.store.setPasswordHash(record.id, upgraded, revokeTokens: false)
        }
        return try .json(try await issueToken(core, for: record, device: body.device), encoder: core.encoder)
    }

    /// Checks a password, right or wrong, within the client's budget of checks, through
    /// the login throttle (admitted, 429 when not, and counted as pending before the
    /// account is read and the slow hash runs, then counted as a failure or a success),
    /// within the account's budget unless the client's address is one it trusts, and in
    /// the client's turn of the hashing queue. Returns the account when the password is
    /// its. An unknown (or deleted) account is checked against a dummy hash, so timing
    /// does not tell which accounts exist.
    static func checkPassword(
        _ core: ServerServices, _ password: String, username: String, client: String,
        account: () async throws -> UserRecord?
    ) async throws -> UserRecord? {
        try core.spendPasswordCheck(client: client)
        let ticket = try await core.loginThrottle.begin(username: username, address: client)
        let matched: UserRecord?
        do {
            if !ticket.trusted { try core.spendPasswordCheck(account: username) }
            let record = try await account().flatMap { $0.deletedAt == nil ? $0 : nil }
            let ok = try await core.hashing.verify(
                password, against: record?.passwordHash ?? core.dummyHash, for: client)
            matched = ok ? record : nil
        } catch {
            // Not checked (the hashing queue is full, the store failed): neither a
            // failure nor a success.
            try? await core.loginThrottle.cancel(ticket)
            throw error
        }
        try await core.loginThrottle.finish(ticket, succeeded: matched != nil)
        return matched
    }

    static func logout(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        try await context.core.store.revokeToken(id: session.tokenID, reason: "logout")
        context.core.authenticator.invalidate(tokenIDs: [session.tokenID])
        context.core.hub.end(tokenID: session.tokenID, with: .loggedOut)
        return .noContent
    }

    static func me(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        guard let record = try await context.core.store.user(id: session.userID) else {
            throw APIError(.unauthorized, "this account no longer exists")
        }
        return .user(record.user)
    }

    static func updateMe(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let update = try context.decode(ProfileUpdate.self)
        guard !update.isEmpty else {
            throw APIError(.invalidRequest, "nothing to change: give nickname, avatar_url, signature or attrs")
        }
        try update.validate()
        try await MediaReference.check(update.avatarURL, field: "avatar_url", by: session.userID, context.core)
        let record = try await context.core.store.updateProfile(session.userID, update)
        return .user(record.user)
    }

    static func changePassword(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let body = try context.decode(PasswordChange.self)
        try Validate.password(body.newPassword)
        // The old password is a password check like a login's: guesses count the same.
        guard let record = try await checkPassword(
            core, body.oldPassword, username: session.username, client: context.client,
            account: { try await core.store.user(id: session.userID) })
        else {
            throw APIError(.forbidden, "the old password is wrong", field: "old_password")
        }
        let hash = try await core.hashing.hash(body.newPassword, for: context.client)
        try await core.store.setPasswordHash(session.userID, hash, revokeTokens: true)
        core.authenticator.invalidate(userID: session.userID)
        core.hub.wake(userID: session.userID)
        return try .json(try await issueToken(core, for: record, device: session.device), encoder: core.encoder)
    }

    /// Stores an avatar, replacing the caller's earlier one (deleted once nothing shows
    /// it); the same image again reuses the stored copy. Within the account's media budget.
    static func uploadAvatar(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let bytes = [UInt8](context.request.body)
        guard !bytes.isEmpty else { throw APIError(.invalidRequest, "the body must hold the image bytes") }
        guard let type = ImageFormat.sniff(bytes) else {
            throw APIError(.unsupportedMediaType, "an avatar must be a PNG, JPEG, GIF or WebP image")
        }
        let (record, media) = try await core.store.setAvatar(
            session.userID, contentType: type.mimeType, bytes: bytes, sha256: Digest.sha256(bytes),
            budget: core.configuration.mediaBytesPerAccount)
        let info = MediaInfo(id: media.id, url: media.path, contentType: media.contentType, size: bytes.count)
        return try .json(AvatarUpload(user: record.user, media: info), encoder: core.encoder)
    }

    /// The caller's live logins, with when each was last used: what the store recorded,
    /// or newer use this process saw since its last flush.
    static func sessions(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let tokens = try await core.store.liveTokens(of: session.userID, at: core.now())
        let recent = core.authenticator.recentUsage(of: tokens.map(\.id))
        let list = tokens.map { token in
            let lastUsed = recent[token.id].map { Timestamp(milliseconds: $0) } ?? token.lastUsedAt
            return SessionInfo(
                id: String(token.id), device: token.device, createdAt: token.createdAt, lastUsedAt: lastUsed,
                expiresAt: token.expiresAt, current: token.id == session.tokenID)
        }
        return try .json(SessionList(sessions: list), encoder: core.encoder)
    }

    /// Ends one of the caller's logins; its parked poll answers 401 at once.
    static func endSession(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let text = try context.parameter("id")
        guard let id = Int64(text),
            try await core.store.liveTokens(of: session.userID, at: core.now()).contains(where: { $0.id == id })
        else {
            throw APIError(.notFound, "no login '\(text)' of yours: GET /v1/me/sessions lists them")
        }
        try await core.store.revokeToken(id: id, reason: id == session.tokenID ? "logout" : "ended")
        core.authenticator.invalidate(tokenIDs: [id])
        core.hub.end(tokenID: id, with: .loggedOut)
        return .noContent
    }
}
