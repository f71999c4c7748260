import IMProtocol
import IMStore
import SwitchboardCrypto

/// Account administration straight on a server's data folder, for `switchboard user
/// --data DIR`: how the first administrator comes to be, with no HTTP involved (nothing
/// a client sends can grant administration).
///
/// Safe while the server runs (SQLite serialises the writers); a running server sees a
/// new account at once, and a changed password or role within 30 s (its login cache).
public final class AccountAdministration: Sendable {
    private let store: SQLiteStore
    /// Hashing off the cooperative pool, one at a time.
    private let hashing: HashingPool

    /// Opens the database in `dataDirectory` (creating it when new).
    public init(dataDirectory: String, passwordHasher: PasswordHasher = .standard) throws {
        if let problem = IMServerApp.createDirectories(dataDirectory) {
            throw ServerStartError(message: "cannot create the data folder \(dataDirectory): \(problem)")
        }
        do {
            store = try SQLiteStore(directory: dataDirectory, readers: 1)
        } catch {
            throw ServerStartError(message: "cannot open the database in \(dataDirectory): \(error)")
        }
        hashing = HashingPool(hasher: passwordHasher, width: 1, queueLimit: 1)
    }

    /// Creates an account; throws `APIError` (409 when the name is taken, 400 for a bad field).
    public func addAccount(_ account: AdminCreateUser) async throws -> AdminUser {
        let new = try NewAccount(username: account.username, password: account.password, nickname: account.nickname)
        let record = try await new.create(
            in: store, hash: hashing.hash, isBot: account.bot ?? false,
            isAdmin: account.admin ?? false)
        return AdminUser(user: record.user, admin: record.isAdmin)
    }

    /// One page of accounts in name order.
    public func accounts(after: String?, limit: Int) async throws -> AdminUserList {
        let records = try await store.listUsers(after: after, limit: limit)
        let next = records.count == limit ? records.last?.user.username : nil
        return AdminUserList(users: records.map { AdminUser(user: $0.user, admin: $0.isAdmin) }, next: next)
    }

    /// Sets an account's password and ends its logins.
    public func setPassword(of username: String, to password: String) async throws {
        try Validate.password(password)
        let record = try await existing(username)
        try await store.setPasswordHash(record.id, try await hashing.hash(password), revokeTokens: true)
    }

    /// Grants or withdraws administration of an existing account.
    public func setAdministrator(_ username: String, _ isAdmin: Bool) async throws {
        try await store.setAdmin(try await existing(username).id, isAdmin)
    }

    private func existing(_ username: String) async throws -> UserRecord {
        let name = username.lowercased()
        guard let record = try await store.user(named: name), record.deletedAt == nil else {
            throw APIError(.notFound, "no user '\(name)'")
        }
        return record
    }

    /// Closes the database.
    public func close() async { await store.close() }
}
