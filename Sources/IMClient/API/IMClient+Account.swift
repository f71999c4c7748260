import Foundation
import IMProtocol

/// Registering, logging in and out, and the caller's own profile.
extension IMClient {
    /// Creates an account and logs this client in as it.
    ///
    /// A bot account's login does not expire. `device` defaults to the client's.
    @discardableResult
    public func register(
        username: String, password: String, nickname: String? = nil, bot: Bool = false, device: String? = nil
    ) async throws(IMClientError) -> AuthResponse {
        let body = RegisterRequest(
            username: username, password: password, nickname: nickname, bot: bot ? true : nil,
            device: device ?? self.device)
        var request = try APIRequest("POST", "/v1/register").json(body)
        request.authenticated = false
        request.context = .register(username.lowercased())
        return try await replacingLogin { () async throws(IMClientError) in
            let auth = try await call(request, as: AuthResponse.self)
            adopt(auth)
            return auth
        }
    }

    /// Logs in; a later call uses the new token.
    ///
    /// With a device name (here or in `init`), an earlier login of the same device is
    /// ended and its event stream receives `kicked_out`.
    @discardableResult
    public func login(username: String, password: String, device: String? = nil) async throws(IMClientError)
        -> AuthResponse
    {
        let body = LoginRequest(username: username, password: password, device: device ?? self.device)
        var request = try APIRequest("POST", "/v1/login").json(body)
        request.authenticated = false
        request.context = .login(username.lowercased())
        return try await replacingLogin { () async throws(IMClientError) in
            let auth = try await call(request, as: AuthResponse.self)
            adopt(auth)
            return auth
        }
    }

    /// Ends this login on the server and forgets the token.
    ///
    /// A token the server no longer accepts counts as logged out already.
    public func logout() async throws(IMClientError) {
        guard token != nil else { return }
        do {
            try await callDiscardingBody(APIRequest("POST", "/v1/logout"))
        } catch {
            // A login that had ended already is the goal reached.
            guard error.code == .api(.unauthorized) || error.code == .kickedOut else { throw error }
        }
        forgetLogin()
    }

    /// The caller's own profile.
    public func me() async throws(IMClientError) -> User {
        let user = try await call(APIRequest("GET", "/v1/me"), as: User.self)
        remember(user)
        return user
    }

    /// Changes the fields of the caller's profile that `update` sets.
    @discardableResult
    public func updateProfile(_ update: ProfileUpdate) async throws(IMClientError) -> User {
        let user = try await call(try APIRequest("PATCH", "/v1/me").json(update), as: User.self)
        remember(user)
        return user
    }

    /// Changes the password; every login of the account ends and this client adopts the
    /// new one the server returns.
    @discardableResult
    public func changePassword(old: String, new: String) async throws(IMClientError) -> AuthResponse {
        let request = try APIRequest("PUT", "/v1/me/password").json(PasswordChange(oldPassword: old, newPassword: new))
        return try await replacingLogin { () async throws(IMClientError) in
            let auth = try await call(request, as: AuthResponse.self)
            adopt(auth)
            return auth
        }
    }

    /// Stores `image` (PNG, JPEG, GIF or WebP bytes, at most 2 MiB) as the caller's avatar.
    @discardableResult
    public func uploadAvatar(_ image: Data) async throws(IMClientError) -> AvatarUpload {
        guard !image.isEmpty else { throw IMClientError(.invalidArgument, "the avatar image is empty") }
        guard image.count <= Limits.avatarBytes else {
            throw IMClientError(
                .invalidArgument,
                "the avatar image has \(image.count) bytes; the limit is \(Limits.avatarBytes) bytes (2 MiB)")
        }
        var request = APIRequest("PUT", "/v1/me/avatar")
        request.body = image
        request.contentType = ImageFormat.sniff(image)?.mimeType ?? "application/octet-stream"
        let upload = try await call(request, as: AvatarUpload.self)
        remember(upload.user)
        return upload
    }

    /// The caller's live logins, newest first.
    public func sessions() async throws(IMClientError) -> [SessionInfo] {
        try await call(APIRequest("GET", "/v1/me/sessions"), as: SessionList.self).sessions
    }

    /// Ends one of the caller's logins (its parked poll answers 401).
    public func endSession(id: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("DELETE", "/v1/me/sessions/" + APIPath.segment(id)))
    }
}
