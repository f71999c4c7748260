import IMClient

/// The event stream's cursor, kept in the bot's journal.
///
/// The stream saves a batch's cursor once the consumer asks for the event after the
/// batch, and the bot's event loop asks only when it is done with the event before: by
/// then every event of the batch is handled or journaled, so the cursor never passes
/// unfinished work.
struct JournalCursorStore: CursorStore {
    let journal: BotJournal
    /// False when the bot starts from the present (`on_start: {backlog: skip}`).
    let resumes: Bool

    func load() async throws -> String? {
        resumes ? journal.state.cursor : nil
    }

    func save(_ cursor: String) async throws {
        journal.record(.cursor(cursor))
    }
}
