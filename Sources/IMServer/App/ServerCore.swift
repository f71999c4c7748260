import Foundation
import IMProtocol
import IMStore
import Logging
import SwitchboardCrypto
import Synchronization

/// The server's shared services: storage, logins, the event hub, limits and counters.
/// Route handlers reach everything through it.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let store: any IMStorage
    let authenticator: Authenticator
    let directory: ConversationDirectory
    let hub: EventHub
    let hashing: HashingPool
    let limiter: RateLimiter<RateKey>
    let loginThrottle: LoginThrottle
    let metrics = Metrics()
    let logger: Logger
    let now: @Sendable () -> Timestamp
    let monotonic: MonotonicClock
    /// A hash of a random password at the configured cost: unknown usernames are
    /// verified against it so a login's timing does not tell which accounts exist.
    let dummyHash: String
    /// Gauges sampled at each `/metrics` scrape, registered by whoever owns them.
    private let gaugeSources = Mutex<[@Sendable () -> [(name: String, help: String, value: Int)]]>([])
    let encoder = WireJSON.encoder()
    let decoder = WireJSON.decoder()

    /// A request budget's key: an account or a client address, per kind of request.
    enum RateKey: Hashable, Sendable {
        case user(UserID, Budget)
        case address(String)
    }

    init(
        configuration: ServerConfiguration, store: any IMStorage, logger: Logger,
        now: @escaping @Sendable () -> Timestamp, monotonic: @escaping MonotonicClock
    ) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.now = now
        self.monotonic = monotonic
        self.authenticator = Authenticator(store: store, now: now, monotonic: monotonic)
        self.directory = ConversationDirectory(store: store)
        self.hub = EventHub(clock: monotonic)
        self.dummyHash = (try? configuration.passwordHasher.hash(SecureRandom.token())) ?? ""
        self.hashing = HashingPool(hasher: configuration.passwordHasher, width: configuration.concurrentHashes)
        self.limiter = RateLimiter(clock: monotonic)
        self.loginThrottle = LoginThrottle(limits: configuration.loginLimits, clock: monotonic)
        store.observeFeeds { [hub] update in hub.publish(update) }
        hub.hearsEverything(after: store.committedPosition)
    }

    /// Adds gauges to `/metrics`.
    func addGauges(_ source: @escaping @Sendable () -> [(name: String, help: String, value: Int)]) {
        gaugeSources.withLock { $0.append(source) }
    }

    func gauges() -> [(name: String, help: String, value: Int)] {
        gaugeSources.withLock { $0 }.flatMap { $0() }
    }

    /// Spends one request of the caller's budget, or throws 429 with the wait.
    func spend(_ budget: Budget, session: Session) throws {
        let limits = configuration.rateLimits
        guard budget != .none else { return }
        let bucket = budget == .send ? (session.isBot ? limits.botSend : limits.send) : limits.general
        try take(.user(session.userID, budget), bucket, "too many requests")
    }

    /// Spends one registration of a client address's budget.
    func spendRegistration(address: String) throws {
        try take(.address(address), configuration.rateLimits.register, "too many registrations from this address")
    }

    private func take(_ key: RateKey, _ bucket: RateLimits.Bucket, _ what: String) throws {
        guard configuration.rateLimits.enabled,
            let wait = limiter.acquire(key, rate: bucket.rate, burst: bucket.burst)
        else { return }
        metrics.rateLimited.add(1, ordering: .relaxed)
        let seconds = max(1, Int(wait.rounded(.up)))
        throw APIError(.rateLimited, "\(what): try again in \(seconds) s", retryAfter: seconds)
    }
}
