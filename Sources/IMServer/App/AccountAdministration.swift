import IMProtocol
import IMStore
import Lifecycle
import SwitchboardCrypto

/// Account administration straight on a server's database, for `switchboard user
/// --data DIR` (or `--store postgres://…`): how the first administrator comes to be, with
/// no HTTP involved (nothing a client sends can grant administration).
///
/// Safe while servers run (SQLite serialises the writers; PostgreSQL is shared anyway); a
/// running server sees a new account at once, a changed password (which ends the
/// account's logins) before its next request with PostgreSQL and within 30 s (its login
/// cache) with SQLite, and a changed role within 30 s.
public final class AccountAdministration: Sendable {
    private let store: OpenedStore
    /// Hashing off the cooperative pool, one at a time.
    private let hashing: HashingPool

    /// Opens the database in `dataDirectory` (creating it when new), or the PostgreSQL
    /// database `store` names (migrating it when new).
    public init(dataDirectory: String, store location: StoreLocation = .sqlite, passwordHasher: PasswordHasher = .standard)
        async throws
    {
        var configuration = ServerConfiguration(dataDirectory: dataDirectory, store: location, storeConnections: 1)
        configuration.synchronous = .full
        store = try await OpenedStore.open(configuration, time: SystemTime(), lockingFolder: false)
        hashing = HashingPool(hasher: passwordHasher, width: 1, queueLimit: 1)
    }

    /// Creates an account; throws `APIError` (409 when the name is taken, 400 for a bad field).
    public func addAccount(_ account: AdminCreateUser) async throws -> AdminUser {
        let new = try NewAccount(username: account.username, password: account.password, nickname: account.nickname)
        let record = try await new.create(
            in: store.storage, hash: hashing.hash, isBot: account.bot ?? false,
            isAdmin: account.admin ?? false)
        var created = AdminUser(user: record.user, admin: record.isAdmin)
        if record.user.isBot { created.telegramToken = try await TelegramToken.issue(for: record, in: store.storage).0 }
        return created
    }

    /// A new Telegram Bot API token for a bot account (the one before it ends; a running
    /// server notices within 30 s, its login cache), or with `revoke` none.
    public func telegramToken(of username: String, revoke: Bool) async throws -> AdminUser {
        let record = try await existing(username)
        var answer = AdminUser(user: record.user, admin: record.isAdmin)
        if revoke {
            let ended = try await TelegramToken.revoke(
                for: record.id, in: store.storage, now: Timestamp(milliseconds: SystemTime().wallMilliseconds))
            guard !ended.isEmpty else { throw APIError(.notFound, "'\(record.user.username)' has no Telegram token") }
        } else {
            answer.telegramToken = try await TelegramToken.issue(for: record, in: store.storage).0
        }
        return answer
    }

    /// One page of accounts in name order.
    public func accounts(after: String?, limit: Int) async throws -> AdminUserList {
        let records = try await store.storage.listUsers(after: after, limit: limit)
        let next = records.count == limit ? records.last?.user.username : nil
        return AdminUserList(users: records.map { AdminUser(user: $0.user, admin: $0.isAdmin) }, next: next)
    }

    /// Sets an account's password and ends its logins.
    public func setPassword(of username: String, to password: String) async throws {
        try Validate.password(password)
        let record = try await existing(username)
        try await store.storage.setPasswordHash(record.id, try await hashing.hash(password), revokeTokens: true)
    }

    /// Grants or withdraws administration of an existing account.
    public func setAdministrator(_ username: String, _ isAdmin: Bool) async throws {
        try await store.storage.setAdmin(try await existing(username).id, isAdmin)
    }

    /// The device a runner's administration credential is a login of: it marks the
    /// credential's kind (a login kept for a runner, never ended to make room for others).
    public static let runnerCredentialDevice = "runner-credential"

    /// A new administration credential for a bot runner (`runner.admin_token`): a login of
    /// `username`, which must be an administrator's bot account, that never expires (bot
    /// logins do not). It names its kind (`sbr_`, device ``runnerCredentialDevice``) and
    /// ends, like every login of the account, with `user passwd`, `suspend` or `delete`.
    public func runnerCredential(for username: String) async throws -> String {
        let record = try await existing(username)
        guard record.user.isBot, record.isAdmin else {
            throw APIError(.invalidRequest, "'\(record.user.username)' is not an administrator's bot account: a runner's "
                           + "credential is a login of one, so that it never expires (make one with 'switchboard user "
                           + "add runner --bot --admin')", field: "user")
        }
        let token = "sbr_" + SecureRandom.token(bits: 256)
        _ = try await store.storage.createToken(hash: Authenticator.hash(token), userID: record.id,
                                                device: Self.runnerCredentialDevice, expiresAt: nil)
        return token
    }

    private func existing(_ username: String) async throws -> UserRecord {
        let name = username.lowercased()
        guard let record = try await store.storage.user(named: name), record.deletedAt == nil else {
            throw APIError(.notFound, "no user '\(name)'")
        }
        return record
    }

    /// Closes the database.
    public func close() async { await store.close() }
}
