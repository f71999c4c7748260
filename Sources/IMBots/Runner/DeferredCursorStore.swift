import IMClient

/// The cursor store a bot's event stream uses. The stream offers a batch's cursor when
/// the runner pulls past the batch; the runner saves it only once every event up to
/// there has finished its actions (they run in the background), so a crash never skips
/// an event whose reply was still queued.
struct DeferredCursorStore: CursorStore {
    let initial: String?
    let offer: @Sendable (String) async -> Void

    func load() async throws -> String? { initial }

    func save(_ cursor: String) async throws { await offer(cursor) }
}
