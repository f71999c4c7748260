import IMClient

/// The event stream's cursor, kept in the bot's journal.
///
/// The stream saves a batch's cursor once the consumer asks for the event after the
/// batch, and the bot's event loop asks only when it is done with the event before: by
/// then every event of the batch is handled or journaled, so the cursor never passes
/// unfinished work.
///
/// Any cursor but a bot's first may be lost in a crash: the one before it is stored, and
/// the feed hands over again what came after it. The first is different: a fresh bot's
/// feed begins where its first poll found the present, and a runner that started without
/// that cursor after a crash would begin at a later present and never see the events in
/// between. So the first cursor (of a fresh bot, or after the server forgot the old one)
/// is stored and synced before the stream goes on.
struct JournalCursorStore: CursorStore {
    let journal: BotJournal
    /// False when the bot starts from the present (`on_start: {backlog: skip}`).
    let resumes: Bool
    /// Waits between attempts to store a first cursor while the journal cannot be written.
    let sleep: @Sendable (Duration) async throws -> Void

    /// How long a first cursor waits before it is written again after a failure.
    static let retry = Duration.seconds(1)

    func load() async throws -> String? {
        resumes ? journal.state.cursor : nil
    }

    func save(_ cursor: String) async throws {
        guard let (sequence, first) = journal.record(deciding: { state in (.cursor(cursor), state.cursor == nil) })
        else { return }
        guard first else { return }
        while true {
            do {
                return try await journal.waitUntilDurable(sequence)
            } catch where journal.isClosed {
                throw error
            } catch {
                // The journal logged why; its records stay pending and are written again.
                try await sleep(Self.retry)
            }
        }
    }
}
