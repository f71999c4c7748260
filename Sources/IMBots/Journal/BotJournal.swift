import IMProtocol
import Lifecycle
import Logging
import Synchronization
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
/// Recording takes a lock for a moment and never waits for the disk: the event loop and
/// the outbox workers record from any task. As a service the journal stops last of the
/// bot's parts: it writes what is pending, syncs, and releases the store (and with it
/// the bot's lock); records that come after are dropped.
final class BotJournal: Service {
    let name: String
    private let store: any JournalStore
    private let time: any TimeSource
    private let logger: Logger
    private let newRecords = Doorbell()
    private let current: Mutex<Current>

    private struct Current {
        /// The state with every record applied, written or not.
        var state: JournalState
        var pending: [JournalRecord] = []
        var closed = false
    }

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
        current = Mutex(Current(state: state))
        for warning in contents.warnings { logger.warning("bot \(bot): \(warning)") }
    }

    /// The state with every record applied.
    var state: JournalState { current.withLock { $0.state } }

    /// Whether the event at `position` is new: not handled (or taken over) before.
    func isNew(_ position: Int64) -> Bool { current.withLock { position > $0.state.handledThrough } }

    /// Applies `change` to the state and queues it for the store.
    func record(_ change: JournalRecord.Change) {
        let recorded = current.withLock { current -> Bool in
            guard !current.closed else { return false }
            let record = JournalRecord(sequence: current.state.sequence + 1, change: change)
            current.state.apply(record)
            current.pending.append(record)
            return true
        }
        guard recorded else {
            logger.error("\(name): a change came after the bot stopped; it was dropped")
            return
        }
        newRecords.ring()
    }

    /// Writes records as they come until cancelled; then writes the rest, syncs and
    /// releases the store.
    func run() async throws {
        var writer = Writer()
        while !Task.isCancelled {
            await newRecords.wait()
            await write(&writer)
            // Syncing at most this often bounds the fsyncs, whatever the rate of changes.
            try? await time.sleep(for: Self.syncInterval)
            await sync(&writer)
        }
        current.withLock { $0.closed = true }
        await write(&writer)
        await store.release()
    }

    /// Releases the store of a bot that never ran (another bot failed to start), writing
    /// nothing.
    func abandon() async {
        current.withLock { $0.closed = true }
        await store.release()
    }

    /// The writer's own bookkeeping.
    private struct Writer {
        /// Appended since the last sync.
        var unsynced = false
        /// Whether the last write failed (logged once until one succeeds again).
        var failing = false
    }

    private func write(_ writer: inout Writer) async {
        let (batch, state) = current.withLock { current -> ([JournalRecord], JournalState) in
            defer { current.pending = [] }
            return (current.pending, current.state)
        }
        guard !batch.isEmpty else { return }
        do {
            try await store.append(batch)
            writer.unsynced = true
            let sizes = store.sizes
            if sizes.records > max(Self.compactionBytes, sizes.snapshot) {
                // The state may hold records appended after this batch: their sequence
                // numbers tell the next load to skip them.
                try await store.compact(to: state)
            }
            if writer.failing { logger.notice("\(name): writing works again") }
            writer.failing = false
        } catch {
            // Kept in memory: the next batch tries again.
            current.withLock { $0.pending = batch + $0.pending }
            if !writer.failing { logger.error("\(name): \(error.description) (retrying with the next change)") }
            writer.failing = true
        }
    }

    private func sync(_ writer: inout Writer) async {
        guard writer.unsynced else { return }
        do {
            try await store.sync()
            writer.unsynced = false
        } catch {
            if !writer.failing { logger.error("\(name): \(error.description)") }
        }
    }
}
