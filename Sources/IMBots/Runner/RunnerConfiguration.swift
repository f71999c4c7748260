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
    /// The proxy `http` actions go through (`runner.http.proxy`); nil: none, whatever
    /// `http_proxy` and `https_proxy` in the environment say (a proxy connects for the
    /// runner, past the address filter).
    public var httpProxy: String?
    /// The clock of the runner and its bots: budgets, loop guard, backlog, retries,
    /// outbox pauses and the file watcher. Tests pass a `ManualTime`.
    public var time: any TimeSource
    /// Whether one bot file with a problem (or a failing example) stops the start; by
    /// default the runner starts the good bots and reports the others (`/healthz`).
    public var strict: Bool
    /// Where bots' journals live: the state folder (one runner per bot folder), or the IM
    /// server, where runners share the bots by leases (`runner.journal: server`).
    public var journal: JournalPlacement = .folder

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

/// Where a runner keeps its bots' journals.
public enum JournalPlacement: Sendable, Equatable {
    /// In the state folder (`FileJournalStore`); a folder lock keeps a second runner of
    /// the same folder from running a bot twice.
    case folder
    /// On the IM server (`ServerJournalStore`): every runner configured so may run any
    /// bot of its bots folder, one runner per bot at a time by the bot's lease.
    case server(LeaseSettings)
}

/// How a runner holds its bots' leases (`runner.id`, `runner.lease`).
public struct LeaseSettings: Sendable, Equatable {
    /// The runner's id, unique among the runners sharing the bots (shown to the others).
    public var runnerID: String
    /// How long a lease lasts unless renewed: a dead runner's bots start elsewhere within
    /// about `ttl + retry`. Renewed every third of it.
    public var ttl: Duration
    /// How often the bots another runner holds are tried again.
    public var retry: Duration

    /// The defaults: 15 s leases, retried every 5 s. `ttl` is kept within what the server
    /// grants (1 s to 10 min), `retry` within 100 ms and `ttl`.
    public init(runnerID: String, ttl: Duration = .seconds(15), retry: Duration = .seconds(5)) {
        self.runnerID = runnerID
        self.ttl = min(max(ttl, .seconds(1)), .seconds(600))
        self.retry = min(max(retry, .milliseconds(100)), self.ttl)
    }
}
