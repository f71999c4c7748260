import Foundation
import IMClient
import IMProtocol

/// Logging in, and keeping the login on this machine: a new login or a registration,
/// going on with a kept one, and what is saved for the next start.
extension ChatEffectRunner {
    /// A client for this app's logins.
    func makeClient(token: String? = nil) -> IMClient {
        var settings = configuration.client
        // Slow mode answers 429 with the wait left: the input line says so, instead of a
        // send that shows "…" for up to a minute. Short waits (the general rate limit)
        // are still waited out inside the call.
        settings.sendRetry.maxRetryAfter = min(settings.sendRetry.maxRetryAfter, Self.longestQuietWait)
        return IMClient(
            serverURL: configuration.server, transport: configuration.transport, token: token,
            device: configuration.device, configuration: settings)
    }

    func logIn(
        _ username: String, failure: (String) -> ChatResult = ChatResult.loginFailed,
        _ call: (IMClient) async throws(IMClientError) -> AuthResponse
    ) async -> ChatResult {
        let client = makeClient()
        let auth: AuthResponse
        do {
            auth = try await call(client)
        } catch {
            return failure(error.message)
        }
        current.withLock { $0 = client }
        keep(auth)
        // The Login screen shows this user next time, with their avatar.
        if !auth.user.avatarURL.isEmpty, let image = try? await client.avatar(of: auth.user, cache: store.avatarCache) {
            try? store.saveAvatar(image, for: auth.user.username)
        }
        return .loggedIn(auth.user)
    }

    /// Keeps a login on this machine (0600) for the next start, as `send` and `tail` do.
    func keep(_ auth: AuthResponse) {
        try? store.setLastUsername(auth.user.username)
        try? store.saveProfile(auth.user)
        try? store.saveLogin(
            SavedLogin(username: auth.user.username, serverURL: configuration.server, token: auth.token,
                       device: configuration.device),
            slot: configuration.loginSlot)
    }

    /// Goes on with the login kept for `username`: no password. A login the server ended
    /// is forgotten (the Login screen asks again); a server that cannot be reached now
    /// is tried by the live stream, which says so.
    func resume(_ username: String) async -> ChatResult {
        guard let kept = store.login(of: username, slot: configuration.loginSlot), kept.serverURL == configuration.server
        else { return .loginFailed("no login of \(username) is kept here: log in") }
        let client = makeClient(token: kept.token)
        do {
            let user = try await client.me()
            try? store.saveProfile(user)
            current.withLock { $0 = client }
            return .loggedIn(user)
        } catch where error.apiCode == .unauthorized {
            try? store.removeLogin(of: username, slot: configuration.loginSlot)
            return .loginFailed("The login kept here has ended (\(error.message)): log in again.")
        } catch {
            guard let saved = store.profile(of: username) else { return .loginFailed(error.message) }
            client.use(token: kept.token, user: saved)
            current.withLock { $0 = client }
            return .loggedIn(saved)
        }
    }
}
