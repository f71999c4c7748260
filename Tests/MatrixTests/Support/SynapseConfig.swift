import Foundation

/// The configuration of a test homeserver: SQLite, loopback only, a shared secret for
/// registering test accounts, no federation, no URL previews, no telemetry, and rate
/// limits high enough that only a test that asks for them meets them.
struct SynapseConfig {
    var folder: String
    var port: Int
    var serverName: String
    var sharedSecret: String
    /// Messages per second per user, and the burst allowed (a test of rate limiting
    /// lowers them; everything else stays far above what tests send).
    var messagesPerSecond: Double = 1000
    var messageBurst: Int = 1000

    /// `homeserver.yaml`. JSON is YAML, so the file is written as JSON: no quoting rules
    /// of our own.
    func homeserverYAML() throws -> Data {
        func limit(_ perSecond: Double = 1000, _ burst: Int = 1000) -> [String: Any] {
            ["per_second": perSecond, "burst_count": burst]
        }
        let settings: [String: Any] = [
            "server_name": serverName,
            "pid_file": folder + "/homeserver.pid",
            "listeners": [[
                "port": port, "bind_addresses": ["127.0.0.1"], "type": "http", "tls": false, "x_forwarded": false,
                "resources": [["names": ["client"], "compress": false] as [String: Any]],
            ] as [String: Any]],
            "database": ["name": "sqlite3", "args": ["database": folder + "/homeserver.db"]] as [String: Any],
            "log_config": folder + "/log.yaml",
            "media_store_path": folder + "/media",
            "signing_key_path": folder + "/signing.key",
            "registration_shared_secret": sharedSecret,
            "enable_registration": false,
            "macaroon_secret_key": sharedSecret + "-macaroon",
            "form_secret": sharedSecret + "-form",
            "report_stats": false,
            "enable_metrics": false,
            "url_preview_enabled": false,
            "federation_domain_whitelist": [String](),
            "trusted_key_servers": [[String: Any]](),
            "suppress_key_server_warning": true,
            "presence": ["enabled": false],
            "user_directory": ["enabled": false],
            "rc_message": limit(messagesPerSecond, messageBurst),
            "rc_registration": limit(),
            "rc_login": ["address": limit(), "account": limit(), "failed_attempts": limit()],
            "rc_joins": ["local": limit(), "remote": limit()],
            "rc_joins_per_room": limit(),
            "rc_invites": ["per_room": limit(), "per_user": limit(), "per_issuer": limit()],
            "rc_admin_redaction": limit(),
            "rc_room_creation": limit(),
            "rc_3pid_validation": limit(),
        ]
        return try JSONSerialization.data(withJSONObject: settings, options: [.prettyPrinted, .sortedKeys])
    }

    /// Python's logging set-up: warnings and worse into `homeserver.log`.
    var logYAML: String {
        """
        version: 1
        formatters:
          precise:
            format: '%(asctime)s %(name)s %(levelname)s %(message)s'
        handlers:
          file:
            class: logging.FileHandler
            formatter: precise
            filename: \(folder)/homeserver.log
        root:
          level: WARNING
          handlers: [file]
        disable_existing_loggers: false
        """
    }

    /// A signing key in Synapse's format (`ed25519 <version> <unpadded base64 seed>`),
    /// made here so that no separate key-generating run of Synapse is needed.
    static func signingKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let seed = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let base64 = Data(seed).base64EncodedString().replacingOccurrences(of: "=", with: "")
        return "ed25519 a_test \(base64)\n"
    }

    /// Writes the configuration, log set-up and signing key into `folder`.
    func write() throws {
        try homeserverYAML().write(to: URL(fileURLWithPath: folder + "/homeserver.yaml"))
        try logYAML.write(toFile: folder + "/log.yaml", atomically: true, encoding: .utf8)
        try Self.signingKey().write(toFile: folder + "/signing.key", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder + "/media", withIntermediateDirectories: true)
    }
}
