import IMClient
import IMProtocol
import Logging

/// What a runner needs: the server, the bots, where to keep state, and its listener.
public struct RunnerConfiguration: Sendable {
    /// The IM server's base URL, e.g. `http://127.0.0.1:8080`.
    public var serverURL: String
    /// The folder of bot files.
    public var botsDirectory: String
    /// Where each bot's state file and lock live, and the audit log.
    public var stateDirectory: String
    /// The runner's own HTTP listener (`/metrics`, `/healthz`); nil for none.
    public var listen: ListenAddress?
    /// The environment `${VAR}` in bot files is filled from.
    public var environment: [String: String]
    /// How often the bots folder is checked for changed files, in seconds; 0 turns it off.
    public var watchInterval: Double
    /// How long a bot's long-polls park, in seconds.
    public var pollTimeout: Int

    public init(
        serverURL: String, botsDirectory: String, stateDirectory: String, listen: ListenAddress? = nil,
        environment: [String: String], watchInterval: Double = 1, pollTimeout: Int = 30
    ) {
        self.serverURL = serverURL
        self.botsDirectory = botsDirectory
        self.stateDirectory = stateDirectory
        self.listen = listen
        self.environment = environment
        self.watchInterval = watchInterval
        self.pollTimeout = pollTimeout
    }
}
