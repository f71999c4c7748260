import Foundation
import IMProtocol
import Synchronization

/// The storage of one server on a SQLite file: every `IMStorage` protocol.
///
/// Writes go through `SQLiteDatabase`'s group commit; feed positions come from one
/// counter that only the writer thread advances and that is persisted with each batch
/// (`FeedPositions`), and each committed batch's feed events are told to the observers
/// (`FeedNotifier`). How the feeds are stored: `SQLiteStore+Feed.swift`.
public final class SQLiteStore: Sendable {
    let database: SQLiteDatabase
    public let epoch: String
    let positions: FeedPositions
    let notifier: FeedNotifier
    /// Usernames never change, so id → name is cached for the life of the process.
    let usernames = Mutex<[UserID: String]>([:])
    let clock: @Sendable () -> Timestamp

    /// Opens (creating and migrating as needed) `directory/switchboard.sqlite`.
    public convenience init(
        directory: String, readers: Int = 4, synchronous: SQLiteDatabase.Synchronous = .full,
        clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() }
    ) throws {
        try self.init(
            configuration: SQLiteDatabase.Configuration(
                path: directory + "/switchboard.sqlite", readers: readers, synchronous: synchronous),
            clock: clock)
    }

    public init(
        configuration: SQLiteDatabase.Configuration,
        clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() }
    ) throws {
        let positions = FeedPositions()
        let notifier = FeedNotifier()
        self.positions = positions
        self.notifier = notifier
        self.database = try SQLiteDatabase(
            configuration: configuration, migrations: Schema.migrations,
            beforeCommit: { connection in try positions.persist(connection) },
            afterBatch: { committed in
                guard let update = notifier.finishBatch(committed: committed) else { return }
                positions.committed.max(update.newest)
                notifier.tell(update)
            })
        self.clock = clock
        let (epoch, last) = try Self.loadMeta(configuration.path)
        self.epoch = epoch
        positions.start(after: last)
    }

    /// Reads (creating on first start) the database's epoch and last feed position.
    private static func loadMeta(_ path: String) throws -> (String, Int64) {
        let connection = try SQLiteConnection(path: path)
        let epoch: String
        if let existing = try connection.first("SELECT value FROM meta WHERE key = 'epoch'", as: { $0.text(0) }) {
            epoch = existing
        } else {
            var generator = SystemRandomNumberGenerator()
            epoch = String(UInt32.random(in: 1...UInt32.max, using: &generator), radix: 36)
            try connection.execute("INSERT INTO meta (key, value) VALUES ('epoch', ?)", epoch)
        }
        let last = try connection.first("SELECT value FROM meta WHERE key = 'feed_position'", as: { Int64($0.text(0)) ?? 0 }) ?? 0
        return (epoch, last)
    }

    /// What the database's writer has done: batches, writes, busy and commit time.
    public var writerStats: WriterStats { database.writerStats }

    /// Finishes queued work and closes the database.
    public func close() async { await database.close() }

    public var committedPosition: Int64 { positions.committed.load(ordering: .acquiring) }

    public var issuedPosition: Int64 { positions.next.load(ordering: .acquiring) - 1 }

    public func observeFeeds(_ observer: @escaping @Sendable (FeedUpdate) -> Void) {
        notifier.observe(observer)
    }
}
