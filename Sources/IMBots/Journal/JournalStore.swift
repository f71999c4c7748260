/// Where a bot's journal lives.
///
/// A folder on the runner's machine (`FileJournalStore`, under an `flock`), or the IM
/// server (`ServerJournalStore`, under the bot's lease, `runner.journal: server`), where
/// another runner can take the bot over. A store holds one bot exclusively from its
/// creation until ``release()``, and refuses every write after that.
protocol JournalStore: Sendable {
    /// The last snapshot and the records appended after it, in order, with warnings about
    /// what could not be read (a damaged file set aside, a torn last line dropped).
    /// Called once, before anything is appended.
    func load() async throws(RunnerError) -> JournalContents

    /// Appends records after those already stored. A crash keeps a prefix of what was
    /// appended, never a record without the ones before it.
    func append(_ records: [JournalRecord]) async throws(RunnerError)

    /// Makes what was appended survive a power loss, not only a crash of the process.
    func sync() async throws(RunnerError)

    /// Replaces the snapshot with `snapshot` and drops the records it holds.
    func compact(to snapshot: JournalState) async throws(RunnerError)

    /// Bytes of records stored after the snapshot, and the snapshot's size: what the
    /// journal decides compactions by.
    var sizes: (records: Int, snapshot: Int) { get }

    /// Lets another runner take the bot; later writes throw. Safe to call more than once.
    func release() async
}

/// What a journal store holds when a bot starts.
struct JournalContents: Sendable {
    var snapshot: JournalState?
    var records: [JournalRecord]
    var warnings: [String]
}
