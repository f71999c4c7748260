import Foundation
import IMProtocol
import IMStore
import Lifecycle
import Logging
import SwitchboardCrypto
import Synchronization

/// The server's shared services: storage, logins, the event hub, limits, counters and
/// the clock. Route handlers reach everything through it (as `context.core`).
final class ServerServices: Sendable {
    let configuration: ServerConfiguration
    let store: any IMStorage
    let authenticator: Authenticator
    let directory: ConversationDirectory
    let hub: EventHub
    let hashing: HashingPool
    let limiter: RateLimiter<RateKey>
    let loginThrottle: LoginThrottle
    /// With PostgreSQL: how this node works with the others on the database.
    let cluster: ClusterLink?
    /// Posts updates to the webhooks of bots that speak the Telegram Bot API.
    let telegramWebhooks: TelegramWebhookDeliveries
    let metrics = Metrics()
    let logger: Logger
    /// Where failed requests are logged (a store outage once, not once per request).
    let failures: FailureLog
    /// The one clock the server reads.
    let time: any TimeSource
    /// The process-local administration credential: random per process, never stored.
    let localAdministratorToken = "sbl_" + SecureRandom.token(bits: 256)
    /// A hash of a random password at the configured cost: unknown usernames are
    /// verified against it so a login's timing does not tell which accounts exist.
    let dummyHash: String
    /// Counters and gauges sampled at each `/metrics` scrape, registered by whoever owns them.
    private let metricSources = Mutex<[@Sendable () -> [MetricSample]]>([])
    let encoder = WireJSON.encoder()
    let decoder = WireJSON.decoder()

    /// A request budget's key: an account or a client (`IPAddressRange.clientKey`), per
    /// kind of request.
    enum RateKey: Hashable, Sendable {
        case user(UserID, Budget)
        case address(String)
        /// Password checks of an account (by its name, which every check has).
        case checksOfAccount(String)
        case checksFromClient(String)
        case mediaBytes(String)
    }

    /// Throws `ServerStartError` when the configured password hashing does not work.
    /// `cluster` is the store again when it is a PostgreSQL one other nodes may share.
    init(
        configuration: ServerConfiguration, store: any IMStorage, logger: Logger, time: any TimeSource,
        cluster: PostgresStore? = nil
    ) throws {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.time = time
        self.failures = FailureLog(logger: logger, monotonic: { time.seconds })
        do {
            self.dummyHash = try configuration.passwordHasher.hash(SecureRandom.token())
        } catch {
            throw ServerStartError(message: "cannot hash passwords with the configured cost: \(error)")
        }
        let hub = EventHub(clock: time)
        self.hub = hub
        let authenticator = Authenticator(
            store: store, time: time, localAdministratorToken: localAdministratorToken,
            revocations: cluster.map(ClusterLink.revocationWatch), onRevoked: { ClusterLink.wake(hub, for: $0) })
        self.authenticator = authenticator
        self.cluster = cluster.map { ClusterLink(store: $0, hub: hub, authenticator: authenticator) }
        self.directory = ConversationDirectory(store: store)
        self.hashing = HashingPool(
            hasher: configuration.passwordHasher, width: configuration.concurrentHashes,
            queueLimit: configuration.hashQueueLimit)
        self.limiter = RateLimiter(time: time)
        self.telegramWebhooks = TelegramWebhookDeliveries(settings: configuration.telegram)
        // Shared by every node when they share a database, so N nodes allow no more guesses
        // than one; kept on the wall clock then, which the nodes share.
        self.loginThrottle =
            cluster.map { LoginThrottle(limits: configuration.loginLimits, store: $0, clock: { time.wallMilliseconds }) }
            ?? LoginThrottle(limits: configuration.loginLimits, time: time)
        store.observeFeeds { [hub] update in hub.publish(update) }
        hub.hearsEverything(after: store.committedPosition)
        addMetrics { [failures] in
            [.counter("switchboard_store_unavailable_total",
                      "Requests answered 503 because the store was out of reach (database down, disk full).",
                      failures.refusedForStorage.load(ordering: .relaxed))]
        }
    }

    /// The wall clock, for timestamps.
    func now() -> Timestamp { Timestamp(milliseconds: time.wallMilliseconds) }

    /// Monotonic seconds, for intervals and deadlines.
    func monotonic() -> Double { time.seconds }

    /// Adds samples to every `/metrics` scrape.
    func addMetrics(_ source: @escaping @Sendable () -> [MetricSample]) {
        metricSources.withLock { $0.append(source) }
    }

    /// The samples of every registered source, taken now.
    func sampleMetrics() -> [MetricSample] {
        metricSources.withLock { $0 }.flatMap { $0() }
    }

    /// Claims the login's event poll for this node (where several nodes share the
    /// database); returns the claim's generation, 0 on one node.
    func claimPoll(_ session: Session) async throws -> Int64 {
        try await cluster?.claimPoll(tokenID: session.tokenID) ?? 0
    }

    /// Spends one request of the caller's budget, or throws 429 with the wait.
    func spend(_ budget: Budget, session: Session) throws {
        let limits = configuration.rateLimits
        // The embedding program's own credential is not a client to pace.
        guard budget != .none, !session.isLocalAdministrator else { return }
        let bucket = budget == .send ? (session.isBot ? limits.botSend : limits.send) : limits.general
        try take(.user(session.userID, budget), bucket, "too many requests")
    }

    /// Spends one registration of a client's budget.
    func spendRegistration(client: String) throws {
        try take(.address(client), configuration.rateLimits.register, "too many registrations from this address")
    }

    /// Spends one password check of the client's budget (right or wrong, any account:
    /// a client that knows its passwords cannot keep the hashing busy either), or throws
    /// 429 with the wait. Taken before anything else of the check.
    func spendPasswordCheck(client: String) throws {
        try take(.checksFromClient(client), configuration.loginLimits.checksPerAddress,
                 "too many password checks from this address", always: true)
    }

    /// Spends one password check of the account's budget, or throws 429 with the wait.
    /// Checks from the account's trusted addresses (where it logged in lately) do not
    /// spend it, so that others' attempts cannot lock its owner out.
    func spendPasswordCheck(account username: String) throws {
        try take(.checksOfAccount(username), configuration.loginLimits.checksPerAccount,
                 "too many password checks for this account", always: true)
    }

    /// Throws 429 with the wait while the client's media budget is spent; `charge` the
    /// bytes once they are known.
    func awaitMediaBudget(client: String) throws {
        let bucket = configuration.rateLimits.mediaBytes
        guard configuration.rateLimits.enabled,
            let wait = limiter.waitBeforeSpending(.mediaBytes(client), rate: bucket.rate, burst: bucket.burst)
        else { return }
        metrics.rateLimited.add(1, ordering: .relaxed)
        let seconds = RetryAfter.seconds(wait)
        throw APIError(.rateLimited, "too many media bytes to this address: try again in \(seconds) s", retryAfter: seconds)
    }

    /// Spends `bytes` of the client's media budget.
    func chargeMedia(client: String, bytes: Int) {
        let bucket = configuration.rateLimits.mediaBytes
        guard configuration.rateLimits.enabled else { return }
        limiter.charge(.mediaBytes(client), cost: Double(bytes), rate: bucket.rate, burst: bucket.burst)
    }

    /// Takes one from the key's bucket or throws 429; budgets of `rate_limits` only when
    /// those are enabled, login limits (`always`) whatever they say.
    private func take(_ key: RateKey, _ bucket: RateLimits.Bucket, _ what: String, always: Bool = false) throws {
        guard always || configuration.rateLimits.enabled,
            let wait = limiter.acquire(key, rate: bucket.rate, burst: bucket.burst)
        else { return }
        metrics.rateLimited.add(1, ordering: .relaxed)
        let seconds = RetryAfter.seconds(wait)
        throw APIError(.rateLimited, "\(what): try again in \(seconds) s", retryAfter: seconds)
    }
}
