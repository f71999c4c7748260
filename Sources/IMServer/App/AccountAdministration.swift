import IMProtocol
import IMStore
import Lifecycle
import SwitchboardCrypto

/// Account administration straight on a server's database, for `switchboard user
/// --data DIR` (or `--store postgres://…`): how the first administrator comes to be, with
/// no HTTP involved (nothing a client sends can grant administration).
///
/// Adding and listing accounts is safe while servers run (SQLite serialises the writers;
/// PostgreSQL is shared anyway): a running server sees a new account at once. What ends
/// trust (a new password, which ends the account's logins; a withdrawn administration)
/// reaches PostgreSQL servers before their next request, but a running SQLite server
/// would trust its cached logins for up to 30 s more: on a data folder a server holds,
/// those are refused (`ServerRunning`), pointing to the API, which the server applies at
/// once. Otherwise the folder is held meanwhile, so that no server starts in between.
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
            in: store.storage, hash: { try await self.hashing.hash($0, for: "local") }, isBot: account.bot ?? false,
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

    /// Sets an account's password and ends its logins; refused (`ServerRunning`) on a data
    /// folder a server holds.
    public func setPassword(of username: String, to password: String) async throws {
        try Validate.password(password)
        let record = try await existing(username)
        let hash = try await hashing.hash(password, for: "local")
        try await withoutRunningServer("change a password") {
            try await store.storage.setPasswordHash(record.id, hash, revokeTokens: true)
        }
    }

    /// Grants or withdraws administration of an existing account; withdrawing is refused
    /// (`ServerRunning`) on a data folder a server holds.
    public func setAdministrator(_ username: String, _ isAdmin: Bool) async throws {
        let record = try await existing(username)
        if isAdmin {
            try await store.storage.setAdmin(record.id, true)
        } else {
            try await withoutRunningServer("withdraw administration") { try await store.storage.setAdmin(record.id, false) }
        }
    }

    /// A server runs on the data folder: what would end trust must go through its API.
    public struct ServerRunning: Error, CustomStringConvertible, Sendable {
        public var folder: String
        public var holder: String?
        /// What was asked, e.g. "change a password".
        public var what: String

        public var description: String {
            "a switchboard server is running on the data folder \(folder)\(holder.map { " (pid \($0))" } ?? ""), and it "
                + "would go on trusting the account's cached logins for up to 30 s: \(what) through the server instead "
                + "(switchboard user passwd NAME --server URL --user ADMIN), or stop the server first"
        }
    }

    /// Runs `change` holding the data folder, so that no server runs on it meanwhile;
    /// throws `ServerRunning` when one does. With PostgreSQL, every server applies the
    /// change before its next request, so it just runs.
    private func withoutRunningServer(_ what: String, _ change: () async throws -> Void) async throws {
        guard case .sqlite(_, let directory, _) = store else { return try await change() }
        let lock: DataFolderLock
        do {
            lock = try DataFolderLock(directory: directory)
        } catch {
            throw ServerRunning(folder: directory, holder: error.holder, what: what)
        }
        defer { lock.release() }
        try await change()
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
