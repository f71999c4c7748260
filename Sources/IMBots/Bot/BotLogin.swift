import IMClient
import IMProtocol

/// Logs a bot in, creating its account first when the file says so (`register: true`)
/// and the runner may: only administrators create bot accounts, so the runner does it
/// with its administration credential (`runner.admin_token`).
///
/// A bot that never ran here is created before its first login, so that many new bots
/// starting at once do not pile up failed logins from the runner's address (which the
/// server would lock out); one that ran before logs in first. Unreachable servers and
/// `429`s are waited out (as long as the server asks), forever: a bot has nothing better
/// to do. A refusal ends the bot with a log line that says what to do.
struct BotLogin: Sendable {
    let parts: BotParts
    let password: String

    /// The bot's identity once logged in; nil when the login is refused for good (or the
    /// task is cancelled).
    func run() async -> BotContext.Identity? {
        let createFirst = parts.journal.state.isFresh
        let retrier = Retrier(attempts: nil, backoff: BackoffPolicy(), time: parts.time)
        let outcome = await retrier.run { attempt -> Retrier.Attempt<Result<BotContext.Identity, IMClientError>> in
            do throws(IMClientError) {
                return .finished(.success(try await authenticate(createFirst: createFirst)))
            } catch {
                guard error.isTransient else { return .finished(.failure(error)) }
                if attempt == 1 || attempt % 10 == 0 {
                    parts.logger.warning("bot \(parts.name): \(error.message); retrying")
                }
                return .retry(.failure(error), after: error.serverWait)
            }
        }
        switch outcome {
        case .success(let identity):
            return identity
        case .failure(let error):
            if error.code != .cancelled { report(error) }
            return nil
        }
    }

    private func report(_ error: IMClientError) {
        let definition = parts.rules.now.definition
        parts.logger.error("bot \(parts.name) cannot log in as \(definition.account.username): "
                           + error.message + hint(for: error, definition))
    }

    private func authenticate(createFirst: Bool) async throws(IMClientError) -> BotContext.Identity {
        let auth = try await logIn(parts.rules.now.definition.account, createFirst: createFirst)
        return BotContext.Identity(username: auth.user.username, id: auth.user.id, nickname: auth.user.nickname)
    }

    private func logIn(_ account: BotDefinition.Account, createFirst: Bool) async throws(IMClientError)
        -> AuthResponse
    {
        if account.register, createFirst, parts.configuration.adminToken != nil {
            try await create(account, existingIsFine: true)
        }
        do {
            return try await parts.client.login(username: account.username, password: password)
        } catch where error.apiCode == .unauthorized && account.register && parts.configuration.adminToken != nil {
            try await create(account, existingIsFine: false)
            return try await parts.client.login(username: account.username, password: password)
        }
    }

    /// Creates the bot account with the runner's administration credential.
    private func create(_ account: BotDefinition.Account, existingIsFine: Bool) async throws(IMClientError) {
        let admin = IMClient(serverURL: parts.client.serverURL, transport: parts.transport,
                             token: parts.configuration.adminToken, configuration: parts.client.configuration)
        let nickname = account.nickname ?? parts.rules.now.definition.profile?.nickname
        do {
            try await admin.adminCreateUser(AdminCreateUser(
                username: account.username, password: password, nickname: nickname, bot: true))
            parts.logger.notice("bot \(parts.name): created the bot account \(account.username)")
        } catch where error.apiCode == .conflict && existingIsFine {
            return
        } catch where error.apiCode == .conflict {
            throw IMClientError(.api(.conflict), "the account \(account.username) exists with another password",
                                api: error.api)
        } catch where error.apiCode == .unauthorized || error.apiCode == .forbidden {
            throw IMClientError(
                error.code, "the runner's administration credential (runner.admin_token) was refused: "
                    + "\(error.message); it must be the token of an administrator's login", api: error.api)
        }
    }

    /// What to do about a refused login.
    private func hint(for error: IMClientError, _ definition: BotDefinition) -> String {
        let account = definition.account
        switch error.apiCode {
        case .unauthorized? where account.register && parts.configuration.adminToken == nil:
            let password = account.password.isEmpty
                ? "the password the runner generated, in \(parts.configuration.stateDirectory)/\(parts.name)/password"
                : "the bot's password"
            return ". If the account does not exist yet, this runner cannot create it: it has no administration "
                + "credential. Create it with `switchboard user add \(account.username) --bot` on the server "
                + "(--data DIR, or --server URL --user ADMIN), giving it \(password); or set runner.admin_token "
                + "to an administrator's login token. (`switchboard up` needs neither: it uses the embedded server's)"
        case .unauthorized? where !account.register:
            return " (set account.register: true to have the runner create the account)"
        case .conflict?:
            let variable = account.passwordVariable ?? "account.password"
            return " (set \(variable) to its password, or reset it with `switchboard user passwd \(account.username)`)"
        default:
            return ""
        }
    }
}
