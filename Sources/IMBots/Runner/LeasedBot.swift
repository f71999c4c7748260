import IMClient
import IMProtocol
import Lifecycle
import Logging
import Synchronization

/// A bot of a runner whose journals are on the server (`runner.journal: server`): its
/// `BotLeaseKeeper` runs a `BotSupervisor`, over a `ServerJournalStore` under the lease's
/// fence, only while this runner holds the bot's lease.
final class LeasedBot: BotSlot {
    let bot: String
    private let keeper: BotLeaseKeeper
    private let state: Current

    /// The rules, and the bot running under the current holding, if any (shared with the
    /// keeper's closures).
    private final class Current: Sendable {
        struct Values {
            var definition: BotDefinition
            var running: BotSupervisor?
        }

        private let values: Mutex<Values>

        init(_ definition: BotDefinition) { values = Mutex(Values(definition: definition)) }

        func withLock<T>(_ body: (inout Values) -> T) -> T { values.withLock { body(&$0) } }
    }

    /// Makes a bot's supervisor over the store of one holding.
    typealias Make = @Sendable (BotDefinition, ServerJournalStore) async throws(RunnerError) -> BotSupervisor

    /// - Parameters:
    ///   - holder: the runner as lease holder (`BotRunner.leaseHolder`).
    ///   - make: the bot's supervisor for a holding.
    init(definition: BotDefinition, holder: String, settings: LeaseSettings, configuration: RunnerConfiguration,
         transport: any HTTPTransport, logger: Logger, metrics: RunnerMetrics, make: @escaping Make) {
        bot = definition.name
        let state = Current(definition)
        self.state = state
        let time = configuration.time
        let client = IMClient(
            serverURL: configuration.serverURL, transport: transport,
            device: Self.device("lease:\(definition.name)", runner: settings.runnerID),
            configuration: IMClient.Configuration(sendRetry: .never, sleep: { try await time.sleep(for: $0) }))
        let login = BotLogin(
            name: definition.name, client: client, transport: transport, configuration: configuration,
            definition: { state.withLock { $0.definition } }, logger: logger, time: time,
            password: definition.account.password, createFirst: true)
        let bot = definition.name
        keeper = BotLeaseKeeper(
            bot: bot, holder: holder, settings: settings, client: client, time: time, logger: logger,
            metrics: metrics, logIn: { await login.run() != nil }
        ) { lease, lost in
            let store = ServerJournalStore(client: client, bot: bot, fence: lease.fence, lost: lost)
            let supervisor: BotSupervisor
            do {
                supervisor = try await make(state.withLock { $0.definition }, store)
            } catch {
                logger.error("bot \(bot) cannot start: \(error)")
                return .failedToStart
            }
            state.withLock { $0.running = supervisor }
            defer { state.withLock { $0.running = nil } }
            do {
                try await supervisor.run()
            } catch {
                logger.error("\(supervisor.name) failed: \(error)")
            }
            return Task.isCancelled ? .failedToStart : .finished
        }
    }

    /// A device name for the bot's logins from this runner (at most 64 characters): the
    /// server ends an earlier login of the same device, so each runner has its own.
    static func device(_ base: String, runner: String) -> String {
        String((base + "@" + runner).prefix(Limits.deviceLength.upperBound))
    }

    var definition: BotDefinition { state.withLock { $0.definition } }

    var holding: BotLeaseKeeper.Holding? { keeper.holding }

    var consoleJournal: BotJournal? { state.withLock { $0.running }?.consoleJournal }

    func replace(_ definition: BotDefinition) {
        let running = state.withLock { state -> BotSupervisor? in
            state.definition = definition
            return state.running
        }
        running?.replace(definition)
    }

    func run() async throws {
        try await keeper.run()
    }

    func discard() async {}
}
