import HTTPServer
import IMProtocol
import IMStore
import SwitchboardCrypto

/// The `server:` section of `config.yaml`, as written by people. Every key is optional;
/// `configuration()` fills in the defaults and checks the values.
public struct ServerFileConfig: Decodable, Sendable {
    public var listen: ListenAddress?
    public var data: String?
    /// `open` (anyone may register) or `closed` (administrators create accounts).
    public var registration: String?
    public var admins: [String]?
    /// `full` (fsync each commit; survives power loss) or `normal`.
    public var durability: String?
    public var tokenLifetime: ConfigDuration?
    public var eventRetention: ConfigDuration?
    public var maxBodyBytes: Int?
    public var maxConnections: Int?
    public var idleTimeout: ConfigDuration?
    public var metricsToken: String?
    public var passwordHashing: PasswordHashing?
    public var rateLimits: RateLimitsConfig?

    public struct PasswordHashing: Decodable, Sendable {
        public var memoryKib: Int
        public var iterations: Int
        enum CodingKeys: String, CodingKey {
            case memoryKib = "memory_kib"
            case iterations
        }
    }

    public struct RateLimitsConfig: Decodable, Sendable {
        public var enabled: Bool?
        /// Messages per second a person may send (burst three times that).
        public var sendPerSecond: Double?
        public var botSendPerSecond: Double?
        public var requestsPerSecond: Double?
        enum CodingKeys: String, CodingKey {
            case enabled
            case sendPerSecond = "send_per_second"
            case botSendPerSecond = "bot_send_per_second"
            case requestsPerSecond = "requests_per_second"
        }
    }

    enum CodingKeys: String, CodingKey {
        case listen, data, registration, admins, durability
        case tokenLifetime = "token_lifetime"
        case eventRetention = "event_retention"
        case maxBodyBytes = "max_body_bytes"
        case maxConnections = "max_connections"
        case idleTimeout = "idle_timeout"
        case metricsToken = "metrics_token"
        case passwordHashing = "password_hashing"
        case rateLimits = "rate_limits"
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
        switch registration ?? "open" {
        case "open": config.openRegistration = true
        case "closed": config.openRegistration = false
        case let other: throw Invalid(key: "registration", message: "'\(other)' is not open or closed")
        }
        config.admins = admins?.map { $0.lowercased() } ?? []
        switch durability ?? "full" {
        case "full": config.synchronous = .full
        case "normal": config.synchronous = .normal
        case let other: throw Invalid(key: "durability", message: "'\(other)' is not full or normal")
        }
        if let tokenLifetime { config.tokenLifetime = tokenLifetime.seconds }
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
        if let maxConnections {
            guard maxConnections >= 16 else { throw Invalid(key: "max_connections", message: "must be at least 16") }
            config.http.connectionLimit = maxConnections
        }
        if let idleTimeout { config.http.idleTimeout = max(1, Int(idleTimeout.seconds)) }
        config.metricsToken = metricsToken
        if let hashing = passwordHashing {
            guard hashing.memoryKib >= 8, hashing.iterations >= 1 else {
                throw Invalid(key: "password_hashing", message: "memory_kib must be at least 8 and iterations at least 1")
            }
            config.passwordHasher = PasswordHasher(
                memoryKiB: UInt32(hashing.memoryKib), iterations: UInt32(hashing.iterations), parallelism: 1)
        }
        if let limits = rateLimits {
            if let enabled = limits.enabled { config.rateLimits.enabled = enabled }
            if let rate = limits.sendPerSecond { config.rateLimits.send = .init(rate: rate, burst: rate * 3) }
            if let rate = limits.botSendPerSecond { config.rateLimits.botSend = .init(rate: rate, burst: rate * 3) }
            if let rate = limits.requestsPerSecond { config.rateLimits.general = .init(rate: rate, burst: rate * 4) }
        }
        return config
    }
}
