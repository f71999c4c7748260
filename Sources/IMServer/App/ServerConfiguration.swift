import HTTPServer
import IMStore
import SwitchboardCrypto

/// Everything that shapes one server, with production defaults.
public struct ServerConfiguration: Sendable {
    /// The HTTP listener: address, port and connection limits.
    public var http: HTTPServerConfiguration
    /// Folder for the database and its WAL; created when missing.
    public var dataDirectory: String
    public var synchronous: SQLiteDatabase.Synchronous
    /// Argon2id cost for new password hashes.
    public var passwordHasher: PasswordHasher
    /// Password hashes computed at once at most (each takes `memoryKiB` of memory).
    public var concurrentHashes: Int
    /// Lifetime of a person's login, in seconds; bot logins do not expire.
    public var tokenLifetime: Double
    /// When false only administrators create accounts.
    public var openRegistration: Bool
    /// Usernames that are administrators (created or promoted at start).
    public var admins: [String]
    public var rateLimits: RateLimits
    public var loginLimits: LoginLimits
    /// Events are kept at least this many seconds (7 days minimum); older cursors get 410.
    public var eventRetention: Double
    /// The longest a poll may park, in seconds.
    public var maxPollTimeout: Int
    /// When set, `/metrics` needs `Authorization: Bearer <token>`; when nil it answers
    /// loopback clients only.
    public var metricsToken: String?

    public init(
        http: HTTPServerConfiguration = HTTPServerConfiguration(),
        dataDirectory: String = "data",
        synchronous: SQLiteDatabase.Synchronous = .full,
        passwordHasher: PasswordHasher = .standard,
        concurrentHashes: Int = 2,
        tokenLifetime: Double = 30 * 86400,
        openRegistration: Bool = true,
        admins: [String] = [],
        rateLimits: RateLimits = RateLimits(),
        loginLimits: LoginLimits = LoginLimits(),
        eventRetention: Double = 7 * 86400,
        maxPollTimeout: Int = 50,
        metricsToken: String? = nil
    ) {
        self.http = http
        self.dataDirectory = dataDirectory
        self.synchronous = synchronous
        self.passwordHasher = passwordHasher
        self.concurrentHashes = concurrentHashes
        self.tokenLifetime = tokenLifetime
        self.openRegistration = openRegistration
        self.admins = admins
        self.rateLimits = rateLimits
        self.loginLimits = loginLimits
        self.eventRetention = max(eventRetention, 7 * 86400)
        self.maxPollTimeout = maxPollTimeout
        self.metricsToken = metricsToken
    }
}

/// Per-account request budgets (token buckets: a steady rate and a burst).
public struct RateLimits: Sendable {
    public struct Bucket: Sendable {
        /// Requests per second, sustained.
        public var rate: Double
        /// Requests allowed at once after a quiet period.
        public var burst: Double

        public init(rate: Double, burst: Double) {
            self.rate = rate
            self.burst = burst
        }
    }

    /// Sending messages, for people.
    public var send: Bucket
    /// Sending messages, for bot accounts.
    public var botSend: Bucket
    /// Every other authenticated request.
    public var general: Bucket
    /// Registrations per client address.
    public var register: Bucket
    /// When false nothing is limited (benchmarks).
    public var enabled: Bool

    public init(
        send: Bucket = Bucket(rate: 10, burst: 30), botSend: Bucket = Bucket(rate: 100, burst: 300),
        general: Bucket = Bucket(rate: 50, burst: 200), register: Bucket = Bucket(rate: 0.1, burst: 10),
        enabled: Bool = true
    ) {
        self.send = send
        self.botSend = botSend
        self.general = general
        self.register = register
        self.enabled = enabled
    }
}

/// Limits on failed logins, against password guessing.
public struct LoginLimits: Sendable {
    /// Failures of one username before it is locked for a while.
    public var failuresPerUser: Int
    /// Failures from one client address within `window` before it is refused.
    public var failuresPerAddress: Int
    /// Seconds over which failures count.
    public var window: Double
    /// The first lock's length in seconds; it doubles with each further failure.
    public var baseLockout: Double
    public var maxLockout: Double

    public init(
        failuresPerUser: Int = 5, failuresPerAddress: Int = 50, window: Double = 900,
        baseLockout: Double = 30, maxLockout: Double = 900
    ) {
        self.failuresPerUser = failuresPerUser
        self.failuresPerAddress = failuresPerAddress
        self.window = window
        self.baseLockout = baseLockout
        self.maxLockout = maxLockout
    }
}
