import IMProtocol

/// The `runner:` section of `config.yaml`: where the bots connect, where they are, where
/// the runner keeps its state and listens for webhooks and metrics, and its credentials.
public struct RunnerFileConfig: Decodable, Sendable {
    /// The IM server's URL; `switchboard up` uses its embedded server when absent.
    public var server: String?
    /// The runner's own listener (webhooks, `/metrics`), default 127.0.0.1:8090.
    public var listen: ListenAddress?
    /// The folder of bot files, default `bots` next to the config file.
    public var bots: String?
    /// Where cursors and bot state are kept, default `data/bots`.
    public var state: String?
    /// An administrator's token, with which `register: true` bots get their accounts
    /// created (usually `${SWITCHBOARD_ADMIN_TOKEN}`); empty or absent: none.
    public var adminToken: String?
    /// When set, `/metrics` on the runner's listener needs it as a bearer token.
    public var metricsToken: String?
    /// `http: {allow: [...], proxy: URL}`: private addresses, networks and hosts `http`
    /// actions may reach, and the proxy they go through (none unless set).
    public var http: HTTPSection?
    /// Where bots' journals live: `folder` (the default: the state folder) or `server`
    /// (on the IM server, so that several runners share the bots by leases).
    public var journal: String?
    /// The runner's id among the runners sharing bots (`journal: server`).
    public var id: String?
    /// `lease: {ttl: 15, retry: 5}`: seconds a bot's lease lasts unless renewed, and
    /// between tries to take the bots other runners hold (`journal: server`).
    public var lease: LeaseSection?

    /// `runner.lease`.
    public struct LeaseSection: Decodable, Sendable {
        public var ttl: Double?
        public var retry: Double?

        public init(ttl: Double? = nil, retry: Double? = nil) {
            self.ttl = ttl
            self.retry = retry
        }
    }

    /// `runner.http`.
    public struct HTTPSection: Decodable, Sendable {
        public var allow: [String]?
        /// The proxy `http` actions go through; none unless set (the environment's
        /// `http_proxy` is not used).
        public var proxy: String?

        public init(allow: [String]? = nil, proxy: String? = nil) {
            self.allow = allow
            self.proxy = proxy
        }
    }

    enum CodingKeys: String, CodingKey {
        case server, listen, bots, state, http, journal, id, lease
        case adminToken = "admin_token"
        case metricsToken = "metrics_token"
    }

    public init(server: String? = nil, listen: ListenAddress? = nil, bots: String? = nil, state: String? = nil,
                adminToken: String? = nil, metricsToken: String? = nil, http: HTTPSection? = nil,
                journal: String? = nil, id: String? = nil, lease: LeaseSection? = nil) {
        self.server = server
        self.listen = listen
        self.bots = bots
        self.state = state
        self.adminToken = adminToken
        self.metricsToken = metricsToken
        self.http = http
        self.journal = journal
        self.id = id
        self.lease = lease
    }
}
