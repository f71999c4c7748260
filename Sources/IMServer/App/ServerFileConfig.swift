import HTTPServer
import IMClient
import IMProtocol
import IMStore
import SwitchboardCrypto

/// The `server:` section of `config.yaml`, as written by people. Every key is optional;
/// `configuration()` fills in the defaults and checks the values.
public struct ServerFileConfig: Decodable, Sendable {
    public var listen: ListenAddress?
    public var data: String?
    /// `sqlite` (the default: a database in `data`) or a `postgres://…` URL.
    public var store: String?
    /// Sessions to PostgreSQL for reads at most.
    public var storeConnections: Int?
    /// Sessions committing a node's writes to PostgreSQL.
    public var storeWriters: Int?
    /// `open` (anyone may register) or `closed` (administrators create accounts).
    public var registration: String?
    /// No longer grants anything: a non-empty list is refused with what to run instead.
    public var admins: [String]?
    /// `full` (fsync each commit; survives power loss) or `normal`.
    public var durability: String?
    public var tokenLifetime: ConfigDuration?
    public var eventRetention: ConfigDuration?
    public var maxBodyBytes: Int?
    /// Request body bytes held at once for all requests together.
    public var maxBufferedBodyBytes: Int?
    public var maxConnections: Int?
    public var maxConnectionsPerAddress: Int?
    public var idleTimeout: ConfigDuration?
    public var bodyTimeout: ConfigDuration?
    public var sendTimeout: ConfigDuration?
    /// Addresses or CIDR blocks of reverse proxies whose `X-Forwarded-For` is believed.
    public var trustedProxies: [String]?
    public var metricsToken: String?
    /// Bytes of uploaded media (avatars) one account may keep.
    public var mediaBytesPerAccount: Int?
    /// Bytes of messages a person's (a bot's) account may store per UTC day.
    public var messageBytesPerDay: Int?
    public var botMessageBytesPerDay: Int?
    public var passwordHashing: PasswordHashing?
    public var loginLimits: LoginLimitsConfig?
    public var rateLimits: RateLimitsConfig?
    public var telegram: TelegramConfig?

    /// `telegram:`: the Bot API dialect's webhooks.
    public struct TelegramConfig: Decodable, Sendable {
        /// Private, loopback or link-local addresses, networks or host names webhooks may reach.
        public var webhookAllow: [String]?
        /// Whether this node posts updates to webhooks (default true).
        public var webhooks: Bool?
        enum CodingKeys: String, CodingKey {
            case webhookAllow = "webhook_allow"
            case webhooks
        }
    }

    public struct PasswordHashing: Decodable, Sendable {
        public var memoryKib: Int
        public var iterations: Int
        /// Hashes computed at once.
        public var concurrent: Int?
        /// Hashes waiting or running at most (503 past it).
        public var maxQueued: Int?
        enum CodingKeys: String, CodingKey {
            case memoryKib = "memory_kib"
            case iterations, concurrent
            case maxQueued = "max_queued"
        }
    }

    public struct LoginLimitsConfig: Decodable, Sendable {
        public var failuresPerAccountAndAddress: Int?
        public var failuresPerAddress: Int?
        public var failuresPerAccount: Int?
        public var inFlightPerAccount: Int?
        public var inFlightPerAddress: Int?
        /// Password checks, right or wrong, one account may have per minute (as a burst too).
        public var checksPerAccountPerMinute: Int?
        /// Password checks, right or wrong, from one address (IPv6: its /64) per minute.
        public var checksPerAddressPerMinute: Int?
        /// Live logins one person's account may hold; past it the oldest end.
        public var loginsPerAccount: Int?
        /// Live logins one bot account may hold; past it the oldest end.
        public var loginsPerBot: Int?
        enum CodingKeys: String, CodingKey {
            case failuresPerAccountAndAddress = "failures_per_account_and_address"
            case failuresPerAddress = "failures_per_address"
            case failuresPerAccount = "failures_per_account"
            case inFlightPerAccount = "in_flight_per_account"
            case inFlightPerAddress = "in_flight_per_address"
            case checksPerAccountPerMinute = "checks_per_account_per_minute"
            case checksPerAddressPerMinute = "checks_per_address_per_minute"
            case loginsPerAccount = "logins_per_account"
            case loginsPerBot = "logins_per_bot"
        }
    }

    public struct RateLimitsConfig: Decodable, Sendable {
        public var enabled: Bool?
        /// Messages per second a person may send (burst three times that).
        public var sendPerSecond: Double?
        public var botSendPerSecond: Double?
        public var requestsPerSecond: Double?
        /// Media bytes served per second to one address (burst eight times that).
        public var mediaBytesPerSecond: Double?
        enum CodingKeys: String, CodingKey {
            case enabled
            case mediaBytesPerSecond = "media_bytes_per_second"
            case sendPerSecond = "send_per_second"
            case botSendPerSecond = "bot_send_per_second"
            case requestsPerSecond = "requests_per_second"
        }
    }

    enum CodingKeys: String, CodingKey {
        case listen, data, store, registration, admins, durability
        case storeConnections = "store_connections"
        case storeWriters = "store_writers"
        case tokenLifetime = "token_lifetime"
        case eventRetention = "event_retention"
        case maxBodyBytes = "max_body_bytes"
        case maxBufferedBodyBytes = "max_buffered_body_bytes"
        case maxConnections = "max_connections"
        case maxConnectionsPerAddress = "max_connections_per_address"
        case idleTimeout = "idle_timeout"
        case bodyTimeout = "body_timeout"
        case sendTimeout = "send_timeout"
        case trustedProxies = "trusted_proxies"
        case metricsToken = "metrics_token"
        case mediaBytesPerAccount = "media_bytes_per_account"
        case messageBytesPerDay = "message_bytes_per_day"
        case botMessageBytesPerDay = "bot_message_bytes_per_day"
        case passwordHashing = "password_hashing"
        case loginLimits = "login_limits"
        case rateLimits = "rate_limits"
        case telegram
    }

    public init() {}

    /// A problem with one key, named as the file spells it.
    public struct Invalid: Error, CustomStringConvertible {
        public var key: String
        public var message: String
        public var description: String { "server.\(key): \(message)" }
    }

    /// The validated configuration, defaults filled in.
    public func configuration() throws -> ServerConfiguration {
        var config = ServerConfiguration()
        let address = listen ?? ListenAddress(host: "127.0.0.1", port: 8080)
        config.http.host = address.host
        config.http.port = address.port
        if let data { config.dataDirectory = data }
        if let store {
            guard let location = StoreLocation(store) else {
                throw Invalid(
                    key: "store",
                    message: "'\(Self.redacted(store))' is not sqlite or a postgres:// URL (e.g. postgres://switchboard@db.example/switchboard)")
            }
            config.store = location
        }
        if let storeConnections { config.storeConnections = try Self.count(storeConnections, "store_connections") }
        if let storeWriters {
            guard (1...16).contains(storeWriters) else { throw Invalid(key: "store_writers", message: "must be 1 to 16") }
            config.storeWriters = storeWriters
        }
        switch registration ?? "open" {
        case "open": config.openRegistration = true
        case "closed": config.openRegistration = false
        case let other: throw Invalid(key: "registration", message: "'\(other)' is not open or closed")
        }
        if let admins, !admins.isEmpty {
            throw Invalid(
                key: "admins",
                message: "no longer grants administration (whoever registered a listed name first would get "
                    + "it): remove it, and make an administrator with 'switchboard user add NAME --admin --data \(config.dataDirectory)'")
        }
        switch durability ?? "full" {
        case "full": config.synchronous = .full
        case "normal": config.synchronous = .normal
        case let other: throw Invalid(key: "durability", message: "'\(other)' is not full or normal")
        }
        if let tokenLifetime {
            guard (60...(10 * 365 * 86400)).contains(tokenLifetime.seconds) else {
                throw Invalid(key: "token_lifetime", message: "must be 1m to 3650d")
            }
            config.tokenLifetime = tokenLifetime.seconds
        }
        if let eventRetention {
            guard eventRetention.seconds >= 7 * 86400 else {
                throw Invalid(key: "event_retention", message: "must be at least 7d (cursors stay valid 7 days)")
            }
            config.eventRetention = eventRetention.seconds
        }
        if let maxBodyBytes {
            guard maxBodyBytes >= 1024 else { throw Invalid(key: "max_body_bytes", message: "must be at least 1024") }
            config.http.maxBodyBytes = maxBodyBytes
        }
        if let maxBufferedBodyBytes {
            guard maxBufferedBodyBytes >= 4 << 20 else {
                throw Invalid(key: "max_buffered_body_bytes", message: "must be at least 4194304 (4 MiB: one bot's journal write)")
            }
            config.http.maxBufferedBodyBytes = maxBufferedBodyBytes
        }
        if let maxConnections {
            guard maxConnections >= 16 else { throw Invalid(key: "max_connections", message: "must be at least 16") }
            config.http.connectionLimit = maxConnections
        }
        if let maxConnectionsPerAddress {
            guard maxConnectionsPerAddress >= 1 else {
                throw Invalid(key: "max_connections_per_address", message: "must be at least 1")
            }
            config.http.connectionsPerAddress = maxConnectionsPerAddress
        }
        if let idleTimeout { config.http.idleTimeout = Self.wholeSeconds(idleTimeout) }
        if let bodyTimeout { config.http.bodyTimeout = Self.wholeSeconds(bodyTimeout) }
        if let sendTimeout { config.http.sendTimeout = Self.wholeSeconds(sendTimeout) }
        config.http.trustedProxies = try (trustedProxies ?? []).map { text in
            guard let range = IPAddressRange(text) else {
                throw Invalid(key: "trusted_proxies", message: "'\(text)' is not an IP address or CIDR block (e.g. 10.0.0.0/8, ::1)")
            }
            return range
        }
        if let metricsToken {
            guard metricsToken.utf8.count >= 16 else {
                throw Invalid(key: "metrics_token", message: "must be at least 16 characters (e.g. from openssl rand -hex 16)")
            }
            config.metricsToken = metricsToken
        }
        if let mediaBytesPerAccount {
            guard mediaBytesPerAccount >= Limits.avatarBytes else {
                throw Invalid(key: "media_bytes_per_account", message: "must be at least \(Limits.avatarBytes) (one avatar)")
            }
            config.mediaBytesPerAccount = mediaBytesPerAccount
        }
        // A quota below a mebibyte (some 30 messages of the largest size a day) is a mistake.
        for (key, value) in [("message_bytes_per_day", messageBytesPerDay), ("bot_message_bytes_per_day", botMessageBytesPerDay)] {
            guard let value else { continue }
            guard value >= 1 << 20 else { throw Invalid(key: key, message: "must be at least 1048576 (1 MiB)") }
        }
        if let messageBytesPerDay { config.messageBytesPerDay = messageBytesPerDay }
        if let botMessageBytesPerDay { config.botMessageBytesPerDay = botMessageBytesPerDay }
        if let hashing = passwordHashing {
            // In range before the conversion, which would trap on a negative or huge value.
            guard (8...4_194_304).contains(hashing.memoryKib), (1...1000).contains(hashing.iterations) else {
                throw Invalid(
                    key: "password_hashing", message: "memory_kib must be 8 to 4194304 and iterations 1 to 1000")
            }
            config.passwordHasher = PasswordHasher(
                memoryKiB: UInt32(hashing.memoryKib), iterations: UInt32(hashing.iterations), parallelism: 1)
            if let concurrent = hashing.concurrent { config.concurrentHashes = try Self.count(concurrent, "password_hashing.concurrent") }
            if let queued = hashing.maxQueued { config.hashQueueLimit = try Self.count(queued, "password_hashing.max_queued") }
        }
        if let login = loginLimits {
            if let value = login.failuresPerAccountAndAddress {
                config.loginLimits.failuresPerUser = try Self.count(value, "login_limits.failures_per_account_and_address")
            }
            if let value = login.failuresPerAddress {
                config.loginLimits.failuresPerAddress = try Self.count(value, "login_limits.failures_per_address")
            }
            if let value = login.failuresPerAccount {
                config.loginLimits.failuresPerAccount = try Self.count(value, "login_limits.failures_per_account")
            }
            if let value = login.inFlightPerAccount {
                config.loginLimits.inFlightPerAccount = try Self.count(value, "login_limits.in_flight_per_account")
            }
            if let value = login.inFlightPerAddress {
                config.loginLimits.inFlightPerAddress = try Self.count(value, "login_limits.in_flight_per_address")
            }
            if let value = login.checksPerAccountPerMinute {
                let count = try Self.count(value, "login_limits.checks_per_account_per_minute")
                config.loginLimits.checksPerAccount = .init(rate: Double(count) / 60, burst: Double(count))
            }
            if let value = login.checksPerAddressPerMinute {
                let count = try Self.count(value, "login_limits.checks_per_address_per_minute")
                config.loginLimits.checksPerAddress = .init(rate: Double(count) / 60, burst: Double(count))
            }
            if let value = login.loginsPerAccount {
                config.loginCaps.caps[.person] = try Self.count(value, "login_limits.logins_per_account")
            }
            if let value = login.loginsPerBot {
                config.loginCaps.caps[.bot] = try Self.count(value, "login_limits.logins_per_bot")
            }
        }
        if let limits = rateLimits {
            if let enabled = limits.enabled { config.rateLimits.enabled = enabled }
            if let rate = try Self.rate(limits.sendPerSecond, "rate_limits.send_per_second") {
                config.rateLimits.send = .init(rate: rate, burst: rate * 3)
            }
            if let rate = try Self.rate(limits.botSendPerSecond, "rate_limits.bot_send_per_second") {
                config.rateLimits.botSend = .init(rate: rate, burst: rate * 3)
            }
            if let rate = try Self.rate(limits.requestsPerSecond, "rate_limits.requests_per_second") {
                config.rateLimits.general = .init(rate: rate, burst: rate * 4)
            }
            if let rate = try Self.rate(limits.mediaBytesPerSecond, "rate_limits.media_bytes_per_second") {
                config.rateLimits.mediaBytes = .init(rate: rate, burst: rate * 8)
            }
        }
        if let telegram {
            do {
                config.telegram.webhookAllow = try AddressAllowList(telegram.webhookAllow ?? [])
            } catch {
                throw Invalid(
                    key: "telegram.webhook_allow",
                    message: "'\(error.entry)' is not an address, a network (10.0.0.0/8) or a host name")
            }
            if let webhooks = telegram.webhooks { config.telegram.deliversWebhooks = webhooks }
        }
        return config
    }

    /// A store setting as it may be shown: a password in it replaced by `***`.
    public static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@"),
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return text[..<text.index(after: colon)] + "***" + text[at...]
    }

    /// A duration as whole seconds for the HTTP library: at least 1, at most a day.
    private static func wholeSeconds(_ duration: ConfigDuration) -> Int {
        Int(min(max(duration.seconds.rounded(.up), 1), 86_400))
    }

    /// A count of at least 1 and at most a million.
    private static func count(_ value: Int, _ key: String) throws -> Int {
        guard (1...1_000_000).contains(value) else { throw Invalid(key: key, message: "must be 1 to 1000000") }
        return value
    }

    /// A rate per second, checked: positive and at most a million (a tiny rate is fine:
    /// waits are clamped where they become `Retry-After`).
    private static func rate(_ value: Double?, _ key: String) throws -> Double? {
        guard let value else { return nil }
        guard value.isFinite, value > 0, value <= 1_000_000 else {
            throw Invalid(key: key, message: "must be a number above 0 and at most 1000000")
        }
        return value
    }
}
