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
    ]

    static func register(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let body = try context.decode(RegisterRequest.self)
        let username = try Validate.username(body.username)
        // With registration closed, the administrators named in the configuration may
        // still create their own accounts: that is how the first account comes to be.
        guard core.configuration.openRegistration || core.configuration.admins.contains(username) else {
            throw APIError(.forbidden, "registration is closed on this server: ask an administrator for an account")
        }
        try Validate.password(body.password)
        let nickname = body.nickname ?? username
        try Validate.text(nickname, field: "nickname", length: Limits.nicknameLength)
        if let device = body.device { try Validate.text(device, field: "device", length: Limits.deviceLength) }
        try core.spendRegistration(address: context.request.remoteAddress)
        let record = try await createAccount(
            core, username: username, password: body.password, nickname: nickname, isBot: body.bot ?? false,
            isAdmin: core.configuration.admins.contains(username))
        let auth = try await issueToken(core, for: record, device: body.device)
        return try .json(auth, status: 201, encoder: core.encoder)
    }

    /// Hashes the password and stores the account; 409 when the name is taken.
    static func createAccount(
        _ core: ServerServices, username: String, password: String, nickname: String, isBot: Bool, isAdmin: Bool
    ) async throws -> UserRecord {
        if try await core.store.user(named: username) != nil {
            throw APIError(.conflict, "the username '\(username)' is taken", field: "username")
        }
        let hash = try await core.hashing.hash(password)
        return try await core.store.createUser(
            NewUser(username: username, passwordHash: hash, nickname: nickname, isBot: isBot, isAdmin: isAdmin))
    }

    /// A new login for an account; a same-device login elsewhere is ended.
    static func issueToken(_ core: ServerServices, for record: UserRecord, device: String?) async throws -> AuthResponse {
        let token = "sbt_" + SecureRandom.token(bits: 256)
        let expiresAt = record.user.isBot ? nil : core.now().adding(seconds: core.configuration.tokenLifetime)
        let (_, replaced) = try await core.store.createToken(
            hash: Authenticator.hash(token), userID: record.id, device: device, expiresAt: expiresAt)
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
        let username = body.username.lowercased()
        if let device = body.device { try Validate.text(device, field: "device", length: Limits.deviceLength) }
        let address = context.request.remoteAddress
        try checkThrottle(core, username: username, address: address)
        let record = try await core.store.user(named: username)
        // Verify even for unknown names so timing does not reveal which accounts exist.
        let ok = await core.hashing.verify(body.password, against: record?.passwordHash ?? core.dummyHash)
        guard let record, ok else {
            core.loginThrottle.failed(username: username, address: address)
            core.metrics.loginFailures.add(1, ordering: .relaxed)
            throw APIError(.unauthorized, "wrong username or password", reason: "bad_credentials")
        }
        core.loginThrottle.succeeded(username: username)
        if core.hashing.hasher.needsRehash(record.passwordHash),
            let upgraded = try? await core.hashing.hash(body.password)
        {
            try await core.store.setPasswordHash(record.id, upgraded, revokeTokens: false)
        }
        return try .json(try await issueToken(core, for: record, device: body.device), encoder: core.encoder)
    }

    /// 429 while the account or the address is locked after failed password checks.
    static func checkThrottle(_ core: ServerServices, username: String, address: String) throws {
        if let wait = core.loginThrottle.wait(username: username, address: address) {
            let seconds = max(1, Int(wait.rounded(.up)))
            throw APIError(
                .rateLimited, "too many failed logins: try again in \(seconds) s", retryAfter: seconds)
        }
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
        return try .json(record.user, encoder: context.core.encoder)
    }

    static func updateMe(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let update = try context.decode(ProfileUpdate.self)
        guard !update.isEmpty else {
            throw APIError(.invalidRequest, "nothing to change: give nickname, avatar_url, signature or attrs")
        }
        try update.validate()
        let record = try await context.core.store.updateProfile(session.userID, update)
        return try .json(record.user, encoder: context.core.encoder)
    }

    static func changePassword(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let body = try context.decode(PasswordChange.self)
        try Validate.password(body.newPassword)
        // The old password is a password check like a login's: guesses count the same.
        let address = context.request.remoteAddress
        try checkThrottle(core, username: session.username, address: address)
        guard let record = try await core.store.user(id: session.userID),
            await core.hashing.verify(body.oldPassword, against: record.passwordHash)
        else {
            core.loginThrottle.failed(username: session.username, address: address)
            throw APIError(.forbidden, "the old password is wrong", field: "old_password")
        }
        core.loginThrottle.succeeded(username: session.username)
        let hash = try await core.hashing.hash(body.newPassword)
        try await core.store.setPasswordHash(session.userID, hash, revokeTokens: true)
        core.authenticator.invalidate(userID: session.userID)
        core.hub.wake(userID: session.userID)
        return try .json(try await issueToken(core, for: record, device: session.device), encoder: core.encoder)
    }

    static func uploadAvatar(_ context: RequestContext) async throws -> Response {
        let core = context.core
        let session = try context.caller
        let bytes = [UInt8](context.request.body)
        guard !bytes.isEmpty else { throw APIError(.invalidRequest, "the body must hold the image bytes") }
        guard let type = ImageFormat.sniff(bytes) else {
            throw APIError(.unsupportedMediaType, "an avatar must be a PNG, JPEG, GIF or WebP image")
        }
        let media = try await core.store.putMedia(ownerID: session.userID, contentType: type.mimeType, bytes: bytes)
        let url = "/v1/media/\(media.id)"
        let record = try await core.store.updateProfile(session.userID, ProfileUpdate(avatarURL: url))
        let info = MediaInfo(id: media.id, url: url, contentType: media.contentType, size: bytes.count)
        return try .json(AvatarUpload(user: record.user, media: info), encoder: core.encoder)
    }
}
