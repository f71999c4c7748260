@testable import IMBots
import Synchronization

/// A journal store in memory: the second implementation of the `JournalStore` seam,
/// for tests of the parts above it.
final class MemoryJournalStore: JournalStore {
    private struct Contents {
        var snapshot: JournalState?
        var records: [JournalRecord] = []
        var released = false
        var syncs = 0
        /// Appends to refuse before they are taken again (a store out of reach).
        var failures = 0
    }

    private let contents: Mutex<Contents>

    init(snapshot: JournalState? = nil, records: [JournalRecord] = []) {
        contents = Mutex(Contents(snapshot: snapshot, records: records))
    }

    /// What was appended since the last compaction.
    var records: [JournalRecord] { contents.withLock { $0.records } }
    var snapshot: JournalState? { contents.withLock { $0.snapshot } }
    var isReleased: Bool { contents.withLock { $0.released } }
    var syncCount: Int { contents.withLock { $0.syncs } }

    /// Refuses the next `count` appends.
    func fail(next count: Int) { contents.withLock { $0.failures = count } }

    func load() async throws(RunnerError) -> JournalContents {
        contents.withLock { JournalContents(snapshot: $0.snapshot, records: $0.records, warnings: []) }
    }

    func append(_ records: [JournalRecord]) async throws(RunnerError) {
        try contents.withLock { contents throws(RunnerError) in
            guard !contents.released else { throw RunnerError("written after release") }
            if contents.failures > 0 {
                contents.failures -= 1
                throw RunnerError("the store is out of reach")
            }
            contents.records += records
        }
    }

    func sync() async throws(RunnerError) {
        contents.withLock { $0.syncs += 1 }
    }

    func compact(to snapshot: JournalState) async throws(RunnerError) {
        contents.withLock {
            $0.snapshot = snapshot
            $0.records = []
        }
    }

    var sizes: (records: Int, snapshot: Int) { contents.withLock { ($0.records.count * 100, 0) } }

    func release() async {
        contents.withLock { $0.released = true }
    }
}
