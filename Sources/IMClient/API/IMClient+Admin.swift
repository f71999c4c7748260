import IMProtocol

/// Account administration (administrators only; others get `FORBIDDEN`).
extension IMClient {
    /// One page of accounts in name order; pass the page's `next` as `after` for the next.
    public func adminUsers(after: String? = nil, limit: Int? = nil) async throws(IMClientError) -> AdminUserList {
        var query: [(name: String, value: String)] = []
        if let after { query.append(("after", after)) }
        if let limit { query.append(("limit", String(limit))) }
        return try await call(APIRequest("GET", "/v1/admin/users", query: query))
    }

    /// Creates an account (also when registration is closed).
    @discardableResult
    public func adminCreateUser(_ account: AdminCreateUser) async throws(IMClientError) -> AdminUser {
        var request = try APIRequest("POST", "/v1/admin/users").json(account)
        request.context = .register(account.username.lowercased())
        return try await call(request, as: AdminUser.self)
    }

    /// Sets an account's password; every login of that account ends.
    public func adminSetPassword(username: String, password: String) async throws(IMClientError) {
        let path = "/v1/admin/users/" + APIPath.segment(username) + "/password"
        try await callDiscardingBody(try APIRequest("PUT", path).json(AdminSetPassword(password: password)))
    }

    /// Suspends an account (every login ends, new ones are refused) or lifts the suspension.
    @discardableResult
    public func adminSetSuspended(username: String, _ suspended: Bool) async throws(IMClientError) -> AdminUser {
        let path = "/v1/admin/users/" + APIPath.segment(username) + (suspended ? "/suspend" : "/unsuspend")
        return try await call(APIRequest("POST", path))
    }

    /// Deletes an account; its messages stay, shown as from a deleted account.
    public func adminDeleteUser(username: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("DELETE", "/v1/admin/users/" + APIPath.segment(username)))
    }

    /// Issues a new Telegram Bot API token for a bot account (`telegram_token` in the
    /// answer); the one before it ends.
    public func adminIssueTelegramToken(username: String) async throws(IMClientError) -> AdminUser {
        try await call(APIRequest("POST", "/v1/admin/users/" + APIPath.segment(username) + "/telegram-token"))
    }

    /// Ends a bot account's Telegram Bot API token.
    public func adminRevokeTelegramToken(username: String) async throws(IMClientError) {
        try await callDiscardingBody(
            APIRequest("DELETE", "/v1/admin/users/" + APIPath.segment(username) + "/telegram-token"))
    }
}
