import IMClient
import IMProtocol
import Lifecycle
import Logging

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
    let name: String
    let client: IMClient
    let transport: any HTTPTransport
    let configuration: RunnerConfiguration
    /// The bot's file as it is now (reloads change it).
    let definition: @Sendable () -> BotDefinition
    let logger: Logger
    let time: any TimeSource
    let password: String
    /// Whether to create the account before the first login (a bot that never ran).
    let createFirst: Bool

    /// The login of a running bot's client.
    init(parts: BotParts, password: String) {
        self.init(name: parts.name, client: parts.client, transport: parts.transport,
                  configuration: parts.configuration, definition: { [rules = parts.rules] in rules.now.definition },
                  logger: parts.logger, time: parts.time, password: password,
                  createFirst: parts.journal.state.isFresh)
    }

    init(name: String, client: IMClient, transport: any HTTPTransport, configuration: RunnerConfiguration,
         definition: @escaping @Sendable () -> BotDefinition, logger: Logger, time: any TimeSource,
         password: String, createFirst: Bool) {
        self.name = name
        self.client = client
        self.transport = transport
        self.configuration = configuration
        self.definition = definition
        self.logger = logger
        self.time = time
        self.password = password
        self.createFirst = createFirst
    }

    /// The bot's identity once logged in; nil when the login is refused for good (or the
    /// task is cancelled).
    func run() async -> BotContext.Identity? {
        let retrier = Retrier(attempts: nil, backoff: BackoffPolicy(), time: time)
        let outcome = await retrier.run { attempt -> Retrier.Attempt<Result<BotContext.Identity, IMClientError>> in
            do throws(IMClientError) {
                return .finished(.success(try await authenticate(createFirst: createFirst)))
            } catch {
                guard error.isTransient else { return .finished(.failure(error)) }
                if attempt == 1 || attempt % 10 == 0 {
                    logger.warning("bot \(name): \(error.message); retrying")
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
        let definition = definition()
        logger.error("bot \(name) cannot log in as \(definition.account.username): "
                     + error.message + hint(for: error, definition))
    }

    private func authenticate(createFirst: Bool) async throws(IMClientError) -> BotContext.Identity {
        let auth = try await logIn(definition().account, createFirst: createFirst)
        return BotContext.Identity(username: auth.user.username, id: auth.user.id, nickname: auth.user.nickname)
    }

    private func logIn(_ account: BotDefinition.Account, createFirst: Bool) async throws(IMClientError)
        -> AuthResponse
    {
        if account.register, createFirst, configuration.adminToken != nil {
            try await create(account, existingIsFine: true)
        }
        do {
            return try await client.login(username: account.username, password: password)
        } catch where error.apiCode == .unauthorized && account.register && configuration.adminToken != nil {
            try await create(account, existingIsFine: false)
            return try await client.login(username: account.username, password: password)
        }
    }

    /// Creates the bot account with the runner's administration credential.
    private func create(_ account: BotDefinition.Account, existingIsFine: Bool) async throws(IMClientError) {
        let admin = IMClient(serverURL: client.serverURL, transport: transport,
                             token: configuration.adminToken, configuration: client.configuration)
        let nickname = account.nickname ?? definition().profile?.nickname
        do {
            try await admin.adminCreateUser(AdminCreateUser(
                username: account.username, password: password, nickname: nickname, bot: true))
            logger.notice("bot \(name): created the bot account \(account.username)")
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
        case .unauthorized? where account.register && configuration.adminToken == nil:
            let password = account.password.isEmpty
                ? "the password the runner generated, in \(configuration.stateDirectory)/\(name)/password"
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
