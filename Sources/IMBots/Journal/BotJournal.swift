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
///
/// What must not be lost (a webhook its sender was told is stored) waits with
/// ``waitUntilDurable(_:)``: it writes and syncs at once rather than at the writer's next
/// round, and every caller waiting meanwhile is covered by the same sync.
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
        /// The last record appended to the store, and the last one synced.
        var appendedThrough: UInt64 = 0
        var syncedThrough: UInt64 = 0
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
        // What was read is on disk.
        current = Mutex(Current(state: state, appendedThrough: state.sequence, syncedThrough: state.sequence))
        for warning in contents.warnings { logger.warning("bot \(bot): \(warning)") }
    }

    /// The state with every record applied.
    var state: JournalState { current.withLock { $0.state } }

    /// What `body` reads of the state, without copying all of it.
    func read<T: Sendable>(_ body: (JournalState) -> T) -> T { current.withLock { body($0.state) } }

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

    /// Records the change `decide` makes of the state as it is, in one step under the
    /// journal's lock: a check and the record it leads to are never split by another
    /// caller (two copies of a webhook arriving at once are admitted once).
    ///
    /// Returns `decide`'s verdict with the sequence of its record, or of the last record
    /// when it recorded nothing (what to wait for with ``waitUntilDurable(_:)`` either
    /// way); nil when the journal is closed.
    func record<Verdict: Sendable>(
        deciding decide: (JournalState) -> (JournalRecord.Change?, Verdict)
    ) -> (sequence: UInt64, verdict: Verdict)? {
        let outcome = current.withLock { current -> (sequence: UInt64, verdict: Verdict, first: Bool)? in
            guard !current.closed else { return nil }
            let (change, verdict) = decide(current.state)
            guard let change else { return (current.state.sequence, verdict, false) }
            let record = JournalRecord(sequence: current.state.sequence + 1, change: change)
            current.state.apply(record)
            current.pending.append(record)
            return (record.sequence, verdict, current.pending.count == 1)
        }
        guard let outcome else { return nil }
        if outcome.first { writer.needsWriting(self) }
        return (outcome.sequence, outcome.verdict)
    }

    /// Returns once every record up to `sequence` is on disk (synced): writes and syncs at
    /// once when it is not. Throws when the store fails, or when the record was dropped
    /// (it came after the journal closed).
    func waitUntilDurable(_ sequence: UInt64) async throws(RunnerError) {
        if current.withLock({ $0.syncedThrough >= sequence }) { return }
        await turn.take()
        defer { turn.pass() }
        // Whoever had the turn before may have synced this record too.
        if current.withLock({ $0.syncedThrough >= sequence }) { return }
        guard await write() else { throw RunnerError("\(name): the journal cannot be written") }
        guard current.withLock({ $0.appendedThrough >= sequence }) else {
            throw RunnerError("\(name): the journal is closed")
        }
        try await syncNow()
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

    /// Whether the journal takes no more records (the bot is stopping).
    var isClosed: Bool { current.withLock { $0.closed } }

    /// The last record on disk (for tests).
    var syncedThrough: UInt64 { current.withLock { $0.syncedThrough } }

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

    /// Appends what is pending; false when the store failed (the records stay pending).
    @discardableResult
    private func write() async -> Bool {
        let (batch, state) = current.withLock { current -> ([JournalRecord], JournalState) in
            defer { current.pending = [] }
            return (current.pending, current.state)
        }
        guard let last = batch.last else { return true }
        do {
            try await store.append(JournalRecord.coalesce(batch, lanes: Set(state.accepted.map(\.position))))
            let sizes = store.sizes
            if sizes.records > max(Self.compactionBytes, sizes.snapshot) {
                // The state may hold records appended after this batch: their sequence
                // numbers tell the next load to skip them.
                try await store.compact(to: state)
            }
            let recovered = current.withLock { current -> Bool in
                defer { (current.unsynced, current.failing, current.appendedThrough) = (true, false, last.sequence) }
                return current.failing
            }
            if recovered { logger.notice("\(name): writing works again") }
            return true
        } catch {
            // Kept in memory: the next batch tries again.
            let first = current.withLock { current -> Bool in
                current.pending = batch + current.pending
                defer { current.failing = true }
                return !current.failing
            }
            if first { logger.error("\(name): \(error.description) (retrying with the next change)") }
            writer.needsWriting(self)
            return false
        }
    }

    private func syncStore() async {
        do {
            try await syncNow()
        } catch {
            logger.error("\(name): \(error.description)")
        }
    }

    /// Syncs what was appended, if anything; the caller holds the turn.
    private func syncNow() async throws(RunnerError) {
        let (unsynced, appended) = current.withLock { ($0.unsynced, $0.appendedThrough) }
        guard unsynced else { return }
        try await store.sync()
        current.withLock { current in
            current.unsynced = false
            current.syncedThrough = max(current.syncedThrough, appended)
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
