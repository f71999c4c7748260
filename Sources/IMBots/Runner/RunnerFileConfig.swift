import IMProtocol

/// The `runner:` section of `config.yaml`: where the bots connect, where they are, and
/// where the runner keeps its state and listens for webhooks and metrics.
public struct RunnerFileConfig: Decodable, Sendable {
    /// The IM server's URL; `switchboard up` uses its embedded server when absent.
    public var server: String?
    /// The runner's own listener (webhooks, `/metrics`), default 127.0.0.1:8090.
    public var listen: ListenAddress?
    /// The folder of bot files, default `bots` next to the config file.
    public var bots: String?
    /// Where cursors and bot state are kept, default `data/bots`.
    public var state: String?

    public init(server: String? = nil, listen: ListenAddress? = nil, bots: String? = nil, state: String? = nil) {
        self.server = server
        self.listen = listen
        self.bots = bots
        self.state = state
    }
}
