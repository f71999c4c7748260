/// The live events of the client's login, as an `AsyncSequence` of `LiveEvent`.
///
/// Long-polls `GET /v1/events` from the cursor in a `CursorStore`. Delivery is at least
/// once and never skips: a batch's cursor is saved only when the consumer asks for the
/// element after the batch's last event, i.e. after handling them. The stream reconnects
/// on its own after transport failures and server restarts, and ends:
/// - normally (`nil`) when the consuming task is cancelled (the parked poll is cancelled);
/// - by throwing `IMClientError` with code `.kickedOut` after handing over a `kicked_out`
///   event ("logged in elsewhere: …"), or when the server says so with a 401;
/// - by throwing `.api(.conflict)` ("another client is using this login") when another
///   poll with the same token replaced this one, `.api(.unauthorized)` when the login
///   ended, `.localStorage` when the cursor cannot be saved.
///
/// Iterate it from one task only: each iterator polls on its own, and two polls of one
/// login end each other with `409`.
public struct EventStream: AsyncSequence, Sendable {
    /// What the stream hands out.
    public typealias Element = LiveEvent
    /// What ends the stream early.
    public typealias Failure = IMClientError

    let client: IMClient
    let store: any CursorStore
    let options: EventStreamOptions

    /// Starts polling on the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: EventFeed(client: client, store: store, options: options))
    }

    /// Hands out the stream's elements.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// What the iterator hands out.
        public typealias Element = LiveEvent
        /// What ends the stream early.
        public typealias Failure = IMClientError

        @usableFromInline let feed: EventFeed

        // Inlinable, so that a caller's frame lies right above the feed's: a runner keeps
        // one parked poll per bot, and each async frame in the chain under it is kept for
        // the bot's life (BENCHMARKS.md).

        /// The next element; nil once the stream has ended.
        @inlinable
        public mutating func next() async throws(IMClientError) -> LiveEvent? {
            try await feed.next()
        }

        /// The next element; nil once the stream has ended.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(IMClientError) -> LiveEvent? {
            try await feed.next()
        }
    }
}

extension IMClient {
    /// The live events of this login, resuming from (and saving to) `cursor`.
    ///
    /// With no saved cursor the stream starts at the present: events from before the
    /// first poll are not replayed.
    public func events(cursor: some CursorStore, options: EventStreamOptions = EventStreamOptions()) -> EventStream {
        EventStream(client: self, store: cursor, options: options)
    }
}
