import Lifecycle
import Synchronization

/// Writes the journals of all of a runner's bots: one task for all of them, instead of
/// one per bot (each task keeps the memory its deepest calls needed while it lives).
///
/// A journal with new records rings the writer, which appends every such journal's
/// records, then waits ``BotJournal/syncInterval`` on the runner's clock and syncs the
/// journals it wrote: at most four syncs a second per bot, whatever the rate of changes.
/// A bot's last records are written by the bot itself when it stops
/// (`BotJournal.close()`), so the writer may stop at any time.
final class JournalWriter: Service {
    let name = "journal writer"
    private let time: any TimeSource
    private let waiting = Mutex<[ObjectIdentifier: BotJournal]>([:])
    private let bell = Doorbell()

    init(time: any TimeSource) {
        self.time = time
    }

    /// Asks for `journal`'s new records to be written.
    func needsWriting(_ journal: BotJournal) {
        waiting.withLock { $0[ObjectIdentifier(journal)] = journal }
        bell.ring()
    }

    func run() async throws {
        while !Task.isCancelled {
            await bell.wait()
            let journals = waiting.withLock { waiting -> [BotJournal] in
                defer { waiting = [:] }
                return Array(waiting.values)
            }
            for journal in journals { await journal.flush() }
            try? await time.sleep(for: BotJournal.syncInterval)
            for journal in journals { await journal.sync() }
        }
    }
}
