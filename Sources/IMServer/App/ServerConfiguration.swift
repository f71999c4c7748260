import HTTPServer
import IMClient
import IMProtocol
import IMStore
import SwitchboardCrypto

/// Where a server keeps its data.
public enum StoreLocation: Sendable, Equatable {
    /// A SQLite database in the data folder: one server node.
    case sqlite
    /// A PostgreSQL database (`postgres://…` or a libpq `key=value` string) that several
    /// server nodes may share.
    case postgres(url: String)

    /// Reads `sqlite` or a PostgreSQL URL; nil for anything else.
    public init?(_ text: String) {
        if text == "sqlite" {
            self = .sqlite
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else {
            return nil
        }
    }
}

/// Everything that shapes one server, with production defaults.
public struct ServerConfiguration: Sendable {
    /// The HTTP listener: address, port and connection limits.
    public var http: HTTPServerConfiguration
    /// Folder for the SQLite database and its WAL; created when missing (unused with
    /// PostgreSQL).
    public var dataDirectory: String
    /// SQLite in `dataDirectory` (the default), or a PostgreSQL database.
    public var store: StoreLocation
    /// Sessions a node opens to PostgreSQL for reads at most.
    public var storeConnections: Int
    /// Sessions committing a node's writes to PostgreSQL (each runs its own batches).
    public var storeWriters: Int
    /// How long a request waits for a PostgreSQL session before it answers 503.
    public var storeWait: Duration = .seconds(5)
    public var synchronous: SQLiteDatabase.Synchronous
    /// Argon2id cost for new password hashes.
    public var passwordHasher: PasswordHasher
    /// Password hashes computed at once at most (each takes `memoryKiB` of memory).
    public var concurrentHashes: Int
    /// Password hashes waiting or running at most; past it logins get 503 with `Retry-After`.
    public var hashQueueLimit: Int
    /// Lifetime of a person's login, in seconds; bot logins do not expire.
    public var tokenLifetime: Double
    /// When false only administrators create accounts.
    public var openRegistration: Bool
    public var rateLimits: RateLimits
    public var loginLimits: LoginLimits
    /// How many live logins one account may hold, per kind of credential.
    public var loginCaps = LoginCaps()
    /// Events are kept at least this many seconds (7 days minimum); older cursors get 410.
    public var eventRetention: Double
    /// The longest a poll may park, in seconds.
    public var maxPollTimeout: Int
    /// When set, `/metrics` needs `Authorization: Bearer <token>`; when nil it answers
    /// loopback clients only (not proxied ones), and the server refuses to start on an
    /// address that is not loopback.
    public var metricsToken: String?
    /// Bytes of uploaded media one account may keep (an upload past it gets 413).
    public var mediaBytesPerAccount: Int
    /// Bytes a bot's journal (snapshot and records) may hold on the server; a write past it
    /// gets 413 `journal_full`. Not in the configuration file: `Limits.journalBytes` is
    /// the limit runners are built for.
    public var journalBytesPerBot = IMProtocol.Limits.journalBytes
    /// The Telegram Bot API dialect (docs/telegram.md).
    public var telegram = TelegramSettings()
    /// Bytes of messages a person's account may store per UTC day (`MessageQuota`: text and
    /// 256 bytes per message or edit); past it sends and edits get 429 `message_quota`.
    /// 16 MiB: about 500 messages of the largest size, or 60,000 short ones, a day.
    public var messageBytesPerDay = 16 << 20
    /// The same for bot accounts, which an administrator made: 256 MiB, so an alert bot
    /// that edits one message per alert group on every change keeps posting through a storm.
    public var botMessageBytesPerDay = 256 << 20

    /// The daily message quota of a person's or a bot's account.
    public func messageQuota(isBot: Bool) -> MessageQuota {
        MessageQuota(bytesPerDay: isBot ? botMessageBytesPerDay : messageBytesPerDay)
    }

    public init(
        http: HTTPServerConfiguration = HTTPServerConfiguration(),
        dataDirectory: String = "data",
        store: StoreLocation = .sqlite,
        storeConnections: Int = 16,
        storeWriters: Int = 1,
        synchronous: SQLiteDatabase.Synchronous = .full,
        passwordHasher: PasswordHasher = .standard,
        concurrentHashes: Int = 2,
        hashQueueLimit: Int = 32,
        tokenLifetime: Double = 30 * 86400,
        openRegistration: Bool = true,
        rateLimits: RateLimits = RateLimits(),
        loginLimits: LoginLimits = LoginLimits(),
        eventRetention: Double = 7 * 86400,
        maxPollTimeout: Int = 50,
        metricsToken: String? = nil,
        mediaBytesPerAccount: Int = 8 << 20
    ) {
        self.http = http
        self.dataDirectory = dataDirectory
        self.store = store
        self.storeConnections = storeConnections
        self.storeWriters = storeWriters
        self.synchronous = synchronous
        self.passwordHasher = passwordHasher
        self.concurrentHashes = concurrentHashes
        self.hashQueueLimit = hashQueueLimit
        self.tokenLifetime = tokenLifetime
        self.openRegistration = openRegistration
        self.rateLimits = rateLimits
        self.loginLimits = loginLimits
        self.eventRetention = max(eventRetention, 7 * 86400)
        self.maxPollTimeout = maxPollTimeout
        self.metricsToken = metricsToken
        self.mediaBytesPerAccount = mediaBytesPerAccount
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
    /// Media bytes served per client address (anyone may read media): a burst, then a
    /// steady rate in bytes per second.
    public var mediaBytes: Bucket
    /// When false nothing is limited (benchmarks).
    public var enabled: Bool

    public init(
        send: Bucket = Bucket(rate: 10, burst: 30), botSend: Bucket = Bucket(rate: 100, burst: 300),
        general: Bucket = Bucket(rate: 50, burst: 200), register: Bucket = Bucket(rate: 0.1, burst: 10),
        mediaBytes: Bucket = Bucket(rate: 2 * 1_048_576, burst: 16 * 1_048_576), enabled: Bool = true
    ) {
        self.send = send
        self.botSend = botSend
        self.general = general
        self.register = register
        self.mediaBytes = mediaBytes
        self.enabled = enabled
    }
}

/// Limits on password checks, against guessing (see `LoginThrottle`).
public struct LoginLimits: Sendable {
    /// Failures of one account from one address before that address is locked out of it.
    public var failuresPerUser: Int
    /// Failures from one client address within `window` (any accounts) before it is refused.
    public var failuresPerAddress: Int
    /// Failures of one account within `window` from all addresses together, past which
    /// only addresses it logged in from lately get through.
    public var failuresPerAccount: Int
    /// Password checks of one account running at once.
    public var inFlightPerAccount: Int
    /// Password checks from one address running at once.
    public var inFlightPerAddress: Int
    /// Password checks of one account, right or wrong, from all addresses together
    /// (logins, the old password of a password change): a burst, then a steady rate.
    public var checksPerAccount = RateLimits.Bucket(rate: 10.0 / 60, burst: 10)
    /// Password checks from one client address (IPv6: its /64), right or wrong, any accounts.
    public var checksPerAddress = RateLimits.Bucket(rate: 30.0 / 60, burst: 30)
    /// Seconds over which failures count.
    public var window: Double
    /// The first lock's length in seconds; it doubles with each further failure.
    public var baseLockout: Double
    public var maxLockout: Double
    /// How long admitting a check waits for another check's change of the same records
    /// (on PostgreSQL: a row lock); past it the login gets 429 "in progress", so a burst of
    /// guesses cannot hold the database sessions.
    public var admissionWait: Duration = .milliseconds(250)

    public init(
        failuresPerUser: Int = 5, failuresPerAddress: Int = 50, failuresPerAccount: Int = 100,
        inFlightPerAccount: Int = 2, inFlightPerAddress: Int = 8, window: Double = 900,
        baseLockout: Double = 30, maxLockout: Double = 900
    ) {
        self.failuresPerUser = failuresPerUser
        self.failuresPerAddress = failuresPerAddress
        self.failuresPerAccount = failuresPerAccount
        self.inFlightPerAccount = inFlightPerAccount
        self.inFlightPerAddress = inFlightPerAddress
        self.window = window
        self.baseLockout = baseLockout
        self.maxLockout = maxLockout
    }
}

/// How the server speaks the Telegram Bot API (`telegram:` in the server section).
public struct TelegramSettings: Sendable {
    /// Private, loopback and link-local addresses bots' webhooks may be posted to (public
    /// ones always may).
    public var webhookAllow = AddressAllowList()
    /// Whether this node posts bots' updates to their webhooks. Where several nodes share
    /// a database, let one do it: each that does posts every update.
    public var deliversWebhooks = true
    /// Tries of one update before it is given up (and the webhook's last error says so).
    public var webhookAttempts = 8

    public init() {}
}
