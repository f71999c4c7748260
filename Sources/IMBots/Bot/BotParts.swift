import IMClient
import Lifecycle
import Logging

/// What the parts of one running bot share: its client, rules, journal, clock and
/// reporter, and the runner's settings. Built once per bot by its supervisor; a class, so
/// that the parts holding it share one copy.
final class BotParts: Sendable {
    /// The bot's name (`bot:`).
    let name: String
    /// The bot's login on the IM server.
    let client: IMClient
    /// How the client reaches the server (shared by the runner's bots).
    let transport: any HTTPTransport
    /// The rules in use, swapped on reload.
    let rules: LiveRules
    /// The owner of the bot's state.
    let journal: BotJournal
    let time: any TimeSource
    let reporter: BotReporter
    let configuration: RunnerConfiguration
    /// The runner listener's paths that bots' services answer.
    let routes: RunnerRoutes
    /// Moderation's counters and look-ups.
    let moderation: BotModeration
    /// The invite-only groups the runner's bots share.
    let groups: SharedGroups
    /// Chat commands the bot's services answer themselves (the alert bridge's).
    let taps = CommandTaps()
    /// The bot's homeserver when it lives on Matrix (`platform: {matrix: …}`): its feed
    /// and its sends go there instead of through `client`.
    let matrix: MatrixLink?

    init(name: String, client: IMClient, transport: any HTTPTransport, rules: LiveRules, journal: BotJournal,
         time: any TimeSource, reporter: BotReporter, configuration: RunnerConfiguration, routes: RunnerRoutes,
         groups: SharedGroups = SharedGroups(), matrix: MatrixLink? = nil) {
        self.name = name
        self.matrix = matrix
        self.client = client
        self.transport = transport
        self.rules = rules
        self.journal = journal
        self.time = time
        self.reporter = reporter
        self.configuration = configuration
        self.routes = routes
        self.moderation = BotModeration(bot: name, client: client, matrix: matrix, journal: journal, time: time,
                                        logger: reporter.logger)
        self.groups = groups
    }

    /// Messages one conversation's outbox holds at most (`limits.queue`).
    var outboxCapacity: Int { rules.now.definition.limits.queue }

    var logger: Logger { reporter.logger }
    var metrics: RunnerMetrics { reporter.metrics }
}
