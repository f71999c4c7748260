/// A bot as the runner starts, reloads and stops it: a `BotSupervisor` when journals are
/// in the state folder, a `LeasedBot` (which runs one while it holds the bot's lease) when
/// they are on the server.
protocol BotSlot: AnyObject, Sendable {
    /// The bot's name (`bot:`).
    var bot: String { get }
    /// The rules in use now.
    var definition: BotDefinition { get }
    /// Swaps in reloaded rules (same account); events after this use them.
    func replace(_ definition: BotDefinition)
    /// Runs until cancelled, or until the bot ends by itself.
    func run() async throws
    /// Gives the bot up without running it (another bot failed to start).
    func discard() async
    /// Who runs the bot, for a bot run by lease; nil for one of the state folder.
    var holding: BotLeaseKeeper.Holding? { get }
    /// The journal of the bot running now, for the operator console to read; nil while
    /// none runs here.
    var consoleJournal: BotJournal? { get }
}

extension BotSlot {
    var holding: BotLeaseKeeper.Holding? { nil }
}
