/// Where a PostgreSQL database is and how sessions with it are set up.
public struct PostgresConfiguration: Sendable {
    /// `postgres://user:password@host:port/database?sslmode=…`, or a libpq `key=value`
    /// string. Anything libpq accepts; its settings win over the defaults below.
    public var url: String
    /// Shown in `pg_stat_activity`, to tell Switchboard's sessions from others.
    public var applicationName: String
    /// Seconds to wait for a connection before giving up.
    public var connectTimeout: Int
    /// Seconds of silence before TCP keepalive probes start, so a connection to a
    /// vanished host is noticed (about `keepaliveIdle + 3 × 10` seconds) instead of hanging.
    public var keepaliveIdle: Int
    /// Named prepared statements each connection keeps (least recently used dropped
    /// first). 0 parses every statement anew, for a pooler in transaction mode that does
    /// not keep prepared statements.
    public var statementCacheCapacity: Int
    /// Server settings every session starts with (`statement_timeout`, `lock_timeout`,
    /// …), set through bound `set_config` calls.
    public var sessionSettings: [String: String]

    /// A configuration with the defaults.
    public init(
        url: String, applicationName: String = "switchboard", connectTimeout: Int = 5, keepaliveIdle: Int = 30,
        statementCacheCapacity: Int = 256, sessionSettings: [String: String] = [:]
    ) {
        self.url = url
        self.applicationName = applicationName
        self.connectTimeout = connectTimeout
        self.keepaliveIdle = keepaliveIdle
        self.statementCacheCapacity = statementCacheCapacity
        self.sessionSettings = sessionSettings
    }

    /// libpq keyword/value pairs: defaults first, then the URL expanded in their place (so
    /// its settings override them), then the client encoding every decoder here assumes.
    var connectionParameters: [(String, String)] {
        [
            ("application_name", applicationName),
            ("connect_timeout", String(connectTimeout)),
            ("keepalives", "1"),
            ("keepalives_idle", String(keepaliveIdle)),
            ("keepalives_interval", "10"),
            ("keepalives_count", "3"),
            // Unacknowledged writes give up after as long as keepalives take to.
            ("tcp_user_timeout", String((keepaliveIdle + 30) * 1000)),
            ("dbname", url),
            ("client_encoding", "UTF8"),
        ]
    }
}
