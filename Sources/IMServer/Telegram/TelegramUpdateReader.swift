import IMProtocol
import IMStore

/// Reads a bot's pending updates from its event feed, from the first update id it has
/// not confirmed, for `getUpdates` and for webhook deliveries alike.
struct TelegramUpdateReader {
    let core: ServerServices
    let bot: UserID

    /// Events read per store call.
    static let page = 100
    /// Store calls per read at most: a bot whose feed holds thousands of its own messages
    /// reads on at its next call.
    static let pagesPerRead = 20

    struct Batch {
        var updates: [TGUpdate]
        /// The newest feed position read: a long-poll waits for events after it.
        var readThrough: Int64
        /// Every update before this id has been read and none of them was for the bot
        /// (its own messages, reads, kinds it did not ask for): they may be confirmed,
        /// so that the next read does not walk them again.
        var nothingBefore: Int64
    }

    /// Up to `limit` updates from update id `first` on, of the kinds `settings` allow.
    func read(from first: Int64, limit: Int, settings: TelegramBotSettings) async throws -> Batch {
        let maker = TelegramUpdateMaker(objects: TelegramObjects(core: core, bot: bot))
        var position = max(TelegramUpdateID.position(of: first) - 1, 0)
        var batch = Batch(updates: [], readThrough: position, nothingBefore: first)
        for _ in 0..<Self.pagesPerRead {
            let events: [Event]
            do {
                events = try await core.store.events(for: bot, after: position, limit: Self.page)
            } catch StoreError.cursorTooOld {
                // What was pending is past the retention: go on from the present.
                position = core.store.committedPosition
                batch = Batch(updates: [], readThrough: position, nothingBefore: TelegramUpdateID.first(of: position + 1))
                continue
            }
            for event in events {
                position = event.position
                batch.readThrough = position
                let made = try await maker.updates(for: event).filter { $0.updateId >= first && settings.allows($0.kind) }
                if made.isEmpty {
                    if batch.updates.isEmpty { batch.nothingBefore = TelegramUpdateID.first(of: position + 1) }
                    continue
                }
                for update in made where batch.updates.count < limit { batch.updates.append(update) }
                if batch.updates.count >= limit { return batch }
            }
            if events.count < Self.page { break }
        }
        return batch
    }
}
