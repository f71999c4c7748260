import IMClient
import IMProtocol
import Lifecycle
import Logging

/// What a runner needs: the server, the bots, where to keep state, its listener, its
/// credentials and its clock.
public struct RunnerConfiguration: Sendable {
    /// The IM server's base URL, e.g. `http://127.0.0.1:8080`.
    public var serverURL: String
    /// The folder of bot files.
    public var botsDirectory: String
    /// Where each bot's journal, lock and generated password live, and the audit log
    /// (folders 0700, files 0600).
    public var stateDirectory: String
    /// The runner's own HTTP listener (`/metrics`, `/healthz`, bots' webhooks); nil for none.
    public var listen: ListenAddress?
    /// The environment `${VAR}` in bot files is filled from.
    public var environment: [String: String]
    /// How often the bots folder is checked for changed files, in seconds; 0 turns it off.
    public var watchInterval: Double
    /// How long a bot's long-polls park, in seconds.
    public var pollTimeout: Int
    /// The token of an administrator's login (`runner.admin_token`), with which bots
    /// that have `register: true` get their accounts created; nil: accounts must exist.
    public var adminToken: String?
    /// When set, `/metrics` on the listener needs it as a bearer token.
    public var metricsToken: String?
    /// Where `http` actions may connect besides public addresses (`runner.http.allow`).
    public var httpAllow: HTTPAllowList
    /// The clock of the runner and its bots: budgets, loop guard, backlog, retries,
    /// outbox pauses and the file watcher. Tests pass a `ManualTime`.
    public var time: any TimeSource
    /// Whether one bot file with a problem (or a failing example) stops the start; by
    /// default the runner starts the good bots and reports the others (`/healthz`).
    public var strict: Bool

    public init(
        serverURL: String, botsDirectory: String, stateDirectory: String, listen: ListenAddress? = nil,
        environment: [String: String], watchInterval: Double = 1, pollTimeout: Int = 30, adminToken: String? = nil,
        metricsToken: String? = nil, httpAllow: HTTPAllowList = HTTPAllowList(), time: any TimeSource = SystemTime(),
        strict: Bool = false
    ) {
        self.strict = strict
        self.serverURL = serverURL
        self.botsDirectory = botsDirectory
        self.stateDirectory = stateDirectory
        self.listen = listen
        self.environment = environment
        // A watch interval too small or too large to sleep on is clamped, not trapped on.
        self.watchInterval = watchInterval.isFinite ? min(max(watchInterval, 0), 86_400) : 1
        self.pollTimeout = min(max(pollTimeout, 0), 50)
        self.adminToken = adminToken.flatMap { $0.isEmpty ? nil : $0 }
        self.metricsToken = metricsToken.flatMap { $0.isEmpty ? nil : $0 }
        self.httpAllow = httpAllow
        self.time = time
    }
}
