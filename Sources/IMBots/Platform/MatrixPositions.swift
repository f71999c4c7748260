import IMClient
import Synchronization

/// Numbers a Matrix feed's events for the journal, and keeps that numbering with the
/// feed's `since` token in the journal's cursor (`<count>|<since>`).
///
/// The journal knows a handled event by its position (everything up to the last handled
/// one is done), and Matrix gives none. So events are counted, and the count at a
/// batch's end is saved with the token that comes after it: a batch seen again after a
/// crash gets the same positions as the first time, and its handled events are not
/// handled twice.
final class MatrixPositions: CursorStore {
    private let journal: any CursorStore
    private let state = Mutex<(saved: Int64, handedOut: Int64)>((0, 0))

    init(journal: any CursorStore) {
        self.journal = journal
    }

    func load() async throws -> String? {
        guard let stored = try await journal.load() else { return nil }
        let parts = stored.split(separator: "|", maxSplits: 1)
        guard parts.count == 2, let count = Int64(parts[0]), count >= 0 else { return nil }
        state.withLock { $0 = (count, count) }
        return String(parts[1])
    }

    /// Saved when the batches before `since` are handled: with the count handed out so far.
    func save(_ since: String) async throws {
        let count = state.withLock { state -> Int64 in
            state.saved = state.handedOut
            return state.handedOut
        }
        try await journal.save("\(count)|\(since)")
    }

    /// The positions of the next `count` events.
    func take(_ count: Int) -> ClosedRange<Int64>? {
        guard count > 0 else { return nil }
        return state.withLock { state in
            let first = state.handedOut + 1
            state.handedOut += Int64(count)
            return first...state.handedOut
        }
    }
}
