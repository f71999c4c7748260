import IMProtocol
import Lifecycle
import Logging
import Templates

/// The one owner of what a bot keeps between runs, and its one write path.
///
/// Every part of the bot changes that state only by recording a `JournalRecord` here:
/// the change applies to ``state`` at once and is appended to the store by this
/// service's writer, in order, a batch at a time (synced at most four times a second).
/// Losing the last records in a crash is harmless: they describe events the feed hands
/// over again from the saved cursor, and messages whose client ids the server
/// recognises. When the records outgrow the snapshot they are compacted into a new one,
/// so the state file is not rewritten for every change.
///
/// As a service it stops last of the bot's parts: it writes what is pending, syncs, and
/// releases the store (and with it the bot's lock); records that come after are dropped.
actor BotJournal: Service {
    nonisolated let name: String
    private let store: any JournalStore
    private let time: any TimeSource
    private let logger: Logger
    /// The state with every record applied, written or not.
    private(set) var state: JournalState
    private var pending: [JournalRecord] = []
    private let newRecords = Doorbell()
    /// Appended since the last sync.
    private var unsynced = false
    /// Whether the last write failed (logged once until one succeeds again).
    private var failing = false
    private var closed = false

    /// How often the writer syncs what it appended.
    static let syncInterval = Duration.milliseconds(250)
    /// Records are compacted once they take this many bytes and more than the snapshot.
    static let compactionBytes = 256 * 1024

    /// Reads the store; `initialState` fills a fresh bot's variables.
    init(bot: String, store: any JournalStore, initialState: [String: TemplateValue], time: any TimeSource,
         logger: Logger) async throws(RunnerError) {
        self.name = "journal \(bot)"
        self.store = store
        self.time = time
        self.logger = logger
        let contents = try await store.load()
        var state = contents.snapshot ?? JournalState()
        for record in contents.records { state.apply(record) }
        if state.isFresh && state.variables.isEmpty { state.variables = initialState }
        self.state = state
        for warning in contents.warnings { logger.warning("bot \(bot): \(warning)") }
    }

    /// Applies `change` to the state and queues it for the store.
    func record(_ change: JournalRecord.Change) {
        guard !closed else {
            logger.error("\(name): a change came after the bot stopped; it was dropped")
            return
        }
        let record = JournalRecord(sequence: state.sequence + 1, change: change)
        state.apply(record)
        pending.append(record)
        newRecords.ring()
    }

    /// Whether the event at `position` is new: not handled (or taken over) before.
    func isNew(_ position: Int64) -> Bool { position > state.handledThrough }

    /// Writes records as they come until cancelled; then writes the rest, syncs and
    /// releases the store.
    nonisolated func run() async throws {
        while !Task.isCancelled {
            await newRecords.wait()
            await writePending()
            // Syncing at most this often bounds the fsyncs, whatever the rate of changes.
            try? await time.sleep(for: Self.syncInterval)
            await syncStore()
        }
        await close()
    }

    private func writePending() async {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = []
        do {
            try await store.append(batch)
            unsynced = true
            let sizes = store.sizes
            if sizes.records > max(Self.compactionBytes, sizes.snapshot) {
                try await store.compact(to: state)
            }
            if failing { logger.notice("\(name): writing works again") }
            failing = false
        } catch {
            // Kept in memory: the next batch tries again.
            pending = batch + pending
            if !failing { logger.error("\(name): \(error.description) (retrying with the next change)") }
            failing = true
        }
    }

    private func syncStore() async {
        guard unsynced else { return }
        do {
            try await store.sync()
            unsynced = false
        } catch {
            if !failing { logger.error("\(name): \(error.description)") }
        }
    }

    private func close() async {
        await writePending()
        closed = true
        await store.release()
    }

    /// Releases the store of a bot that never ran (another bot failed to start), writing
    /// nothing.
    func abandon() async {
        closed = true
        await store.release()
    }
}
