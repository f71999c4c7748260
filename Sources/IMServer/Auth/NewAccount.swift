import IMProtocol
import IMStore

/// The rules every new account follows, whoever makes it: public registration, an
/// administrator over the API, or `switchboard user add` on the data folder.
struct NewAccount {
    let username: String
    let password: String
    let nickname: String

    /// Checks the fields; throws the `APIError` naming the first bad one.
    init(username raw: String, password: String, nickname: String?) throws {
        username = try Validate.username(raw)
        try Validate.password(password)
        let nickname = nickname ?? username
        try Validate.nickname(nickname)
        self.password = password
        self.nickname = nickname
    }

    /// Hashes the password and stores the account; 409 when the name is taken.
    func create(
        in store: any AccountStore, hash: (String) async throws -> String, isBot: Bool, isAdmin: Bool
    ) async throws -> UserRecord {
        try await Self.requireFree(username, in: store)
        let passwordHash = try await hash(password)
        do {
            return try await store.createUser(
                NewUser(username: username, passwordHash: passwordHash, nickname: nickname, isBot: isBot, isAdmin: isAdmin))
        } catch StoreError.conflict(_) {
            // Taken between the check and the insert.
            throw Self.taken(username)
        }
    }

    /// 409 when an account (or a deleted account's reserved name) has this name.
    static func requireFree(_ username: String, in store: any AccountStore) async throws {
        if try await store.user(named: username) != nil { throw taken(username) }
    }

    private static func taken(_ username: String) -> APIError {
        APIError(.conflict, "the username '\(username)' is taken", field: "username")
    }
}
