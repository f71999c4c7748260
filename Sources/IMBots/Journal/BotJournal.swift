import IMProtocol
import Lifecycle
import Logging
import Synchronization
import Templates

/// The one owner of what a bot keeps between runs, and its one write path.
///
/// Every part of the bot changes that state only by recording a `JournalRecord` here:
/// the change applies to ``state`` at once and is appended to the store soon after, in
/// order, a batch at a time, by the runner's `JournalWriter` (which also syncs, at most
/// four times a second). Losing the last records in a crash is harmless: they describe
/// events the feed hands over again from the saved cursor, and messages whose client ids
/// the server recognises. When the records outgrow the snapshot they are compacted into
/// a new one, so the state file is not rewritten for every change.
///
/// Recording takes a lock for a moment and never waits for the disk. Writes to the store
/// happen one at a time (flush, sync and close take turns), and ``close()`` writes what
/// is pending, syncs, and releases the store and with it the bot's lock; records that
/// come after are dropped.
final class BotJournal: Sendable {
    let name: String
    private let store: any JournalStore
    private let writer: JournalWriter
    private let logger: Logger
    private let current: Mutex<Current>
    /// Whose turn it is to write to the store.
    private let turn = Turn()

    private struct Current {
        /// The state with every record applied, written or not.
        var state: JournalState
        var pending: [JournalRecord] = []
        var closed = false
        /// Appended since the last sync.
        var unsynced = false
        /// Whether the last write failed (logged once until one succeeds again).
        var failing = false
    }

    /// How often journals are synced at most.
    static let syncInterval = Duration.milliseconds(250)
    /// Records are compacted once they take this many bytes and more than the snapshot.
    static let compactionBytes = 256 * 1024

    /// Reads the store; `initialState` fills a fresh bot's variables.
    init(bot: String, store: any JournalStore, initialState: [String: TemplateValue], writer: JournalWriter,
         logger: Logger) async throws(RunnerError) {
        self.name = "journal \(bot)"
        self.store = store
        self.writer = writer
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

    /// The rules' state variables as they are now (what an event's rules read).
    var variables: [String: TemplateValue] { current.withLock { $0.state.variables } }

    /// Whether the event at `position` is new: not handled (or taken over) before.
    func isNew(_ position: Int64) -> Bool { current.withLock { position > $0.state.handledThrough } }

    /// Applies `change` to the state and queues it for the store.
    func record(_ change: JournalRecord.Change) {
        let outcome = current.withLock { current -> (recorded: Bool, first: Bool) in
            guard !current.closed else { return (false, false) }
            let record = JournalRecord(sequence: current.state.sequence + 1, change: change)
            current.state.apply(record)
            current.pending.append(record)
            return (true, current.pending.count == 1)
        }
        if !outcome.recorded {
            logger.error("\(name): a change came after the bot stopped; it was dropped")
        } else if outcome.first {
            writer.needsWriting(self)
        }
    }

    /// Appends the records recorded so far (the writer calls this).
    func flush() async {
        await turn.take()
        await write()
        turn.pass()
    }

    /// Syncs what was appended (the writer calls this).
    func sync() async {
        await turn.take()
        await syncStore()
        turn.pass()
    }

    /// Writes what is pending, syncs, and releases the store; nothing is written after.
    func close() async {
        current.withLock { $0.closed = true }
        await turn.take()
        await write()
        await syncStore()
        await store.release()
        turn.pass()
    }

    /// Releases the store of a bot that never ran (another bot failed to start), writing
    /// nothing.
    func abandon() async {
        current.withLock { $0.closed = true }
        await store.release()
    }

    private func write() async {
        let (batch, state) = current.withLock { current -> ([JournalRecord], JournalState) in
            defer { current.pending = [] }
            return (current.pending, current.state)
        }
        guard !batch.isEmpty else { return }
        do {
            try await store.append(JournalRecord.coalesce(batch, lanes: Set(state.accepted.map(\.position))))
            let sizes = store.sizes
            if sizes.records > max(Self.compactionBytes, sizes.snapshot) {
                // The state may hold records appended after this batch: their sequence
                // numbers tell the next load to skip them.
                try await store.compact(to: state)
            }
            let recovered = current.withLock { current -> Bool in
                defer { (current.unsynced, current.failing) = (true, false) }
                return current.failing
            }
            if recovered { logger.notice("\(name): writing works again") }
        } catch {
            // Kept in memory: the next batch tries again.
            let first = current.withLock { current -> Bool in
                current.pending = batch + current.pending
                defer { current.failing = true }
                return !current.failing
            }
            if first { logger.error("\(name): \(error.description) (retrying with the next change)") }
            writer.needsWriting(self)
        }
    }

    private func syncStore() async {
        guard current.withLock({ $0.unsynced }) else { return }
        do {
            try await store.sync()
            current.withLock { $0.unsynced = false }
        } catch {
            logger.error("\(name): \(error.description)")
        }
    }
}

/// One at a time: `take()` waits (in order) until the one before has called `pass()`.
/// Not cancellable: a write that was started is finished.
final class Turn: Sendable {
    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.taken else {
                    state.taken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func pass() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
