import IMProtocol

/// Public profiles and the caller's contacts (the seed's friends).
extension IMClient {
    /// The public profile of one user.
    public func user(named username: String) async throws(IMClientError) -> User {
        try await call(APIRequest("GET", "/v1/users/" + APIPath.segment(username)), as: User.self)
    }

    /// The public profiles of many users, in the order asked; unknown names are listed
    /// in `missing`. Any number of names: they are asked for in batches of 100.
    public func users(named usernames: [String]) async throws(IMClientError) -> UserList {
        var seen = Set<String>()
        let names = usernames.map { $0.lowercased() }.filter { !$0.isEmpty && seen.insert($0).inserted }
        if let bad = names.first(where: { $0.contains(",") }) {
            throw IMClientError(.invalidArgument, "'\(bad)' is not a username (a name never contains a comma)")
        }
        return try await lookup(names)
    }

    private func lookup(_ names: [String]) async throws(IMClientError) -> UserList {
        var users: [User] = []
        var missing: [String] = []
        var start = 0
        while start < names.count {
            let batch = names[start..<min(start + Limits.namesPerLookup, names.count)]
            let request = APIRequest("GET", "/v1/users", query: [("names", batch.joined(separator: ","))])
            let page = try await call(request, as: UserList.self)
            users += page.users
            missing += page.missing ?? []
            start += Limits.namesPerLookup
        }
        return UserList(users: users, missing: missing)
    }

    /// The caller's contacts.
    public func contacts() async throws(IMClientError) -> [User] {
        try await call(APIRequest("GET", "/v1/contacts"), as: UserList.self).users
    }

    /// Adds a contact (adding one twice is fine) and returns their profile.
    @discardableResult
    public func addContact(_ username: String) async throws(IMClientError) -> User {
        try await call(APIRequest("PUT", "/v1/contacts/" + APIPath.segment(username)), as: User.self)
    }

    /// Removes a contact; `NOT_FOUND` when they were not one.
    public func removeContact(_ username: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("DELETE", "/v1/contacts/" + APIPath.segment(username)))
    }

    /// The accounts the caller blocks.
    public func blockedUsers() async throws(IMClientError) -> [User] {
        try await call(APIRequest("GET", "/v1/blocks"), as: UserList.self).users
    }

    /// Blocks a user: their one-to-one messages to the caller are refused (403) from now
    /// on, and they are not told. Blocking twice is fine.
    @discardableResult
    public func block(_ username: String) async throws(IMClientError) -> User {
        try await call(APIRequest("PUT", "/v1/blocks/" + APIPath.segment(username)), as: User.self)
    }

    /// Lifts a block; `NOT_FOUND` when there was none.
    public func unblock(_ username: String) async throws(IMClientError) {
        try await callDiscardingBody(APIRequest("DELETE", "/v1/blocks/" + APIPath.segment(username)))
    }
}
