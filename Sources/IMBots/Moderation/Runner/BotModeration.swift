import IMClient
import IMProtocol
import Lifecycle
import Logging

/// What one running bot keeps for moderation: its strikes and cases (the book, kept in
/// the journal), the counters of `rate` and `repeated` matchers and when members joined
/// (in memory). One per bot, shared by its parts.
final class BotModeration: Sendable {
    /// Strikes, cases, verifications and trigger times; every change is journaled.
    let book: ModerationBook
    /// The counters `rate` and `repeated` read.
    let windows = EventWindows()
    /// When members joined (`from: {joined_within: …}`).
    let joins: JoinTimes

    init(bot: String, client: IMClient, matrix: MatrixLink? = nil, journal: BotJournal, time: any TimeSource,
         logger: Logger) {
        book = ModerationBook(state: journal.state.moderation) { journal.record(.moderation($0)) }
        joins = JoinTimes(client: client, matrix: matrix, time: time) { logger.warning("bot \(bot): \($0)") }
    }
}
