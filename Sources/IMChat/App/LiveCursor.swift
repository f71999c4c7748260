import IMClient
import Synchronization

/// The live stream's cursor, kept in memory for one run of the stream, that says when
/// the stream first holds one: from then on nothing that happens is missed, so the app
/// loads the sessions and contacts only then.
final class LiveCursor: CursorStore {
    private let state = Mutex<(cursor: String?, ready: Bool)>((nil, false))
    private let onReady: @Sendable () -> Void

    init(onReady: @escaping @Sendable () -> Void) {
        self.onReady = onReady
    }

    func load() async throws -> String? { state.withLock { $0.cursor } }

    func save(_ cursor: String) async throws {
        let first = state.withLock { state -> Bool in
            state.cursor = cursor
            defer { state.ready = true }
            return !state.ready
        }
        if first { onReady() }
    }
}
