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
    /// Epochs of the databases this one was restored from, each with the last feed
    /// position its backup held (`FeedEpochs`).
    let earlierEpochs: [String: Int64]
    let positions: FeedPositions
    let notifier: FeedNotifier
    /// Usernames never change, so id → name is cached for the life of the process.
    let usernames = Mutex<[UserID: String]>([:])
    /// The conversations the writer writes to, as it last saw them (writer thread only).
    let rosters = RosterCache()
    let clock: @Sendable () -> Timestamp

    /// The database's file name inside a data folder.
    public static let fileName = "switchboard.sqlite"

    /// The database file of the data folder `directory`.
    public static func databasePath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent(fileName)
    }

    /// Opens (creating and migrating as needed) `directory/switchboard.sqlite`.
    public convenience init(
        directory: String, readers: Int = 4, synchronous: SQLiteDatabase.Synchronous = .full,
        clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() }
    ) throws {
        try self.init(
            configuration: SQLiteDatabase.Configuration(
                path: Self.databasePath(in: directory), readers: readers, synchronous: synchronous),
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
        let rosters = self.rosters
        self.database = try SQLiteDatabase(
            configuration: configuration, migrations: Schema.migrations,
            prepareWriter: { try rosters.attach(to: $0) },
            beforeCommit: { connection in try positions.persist(connection) },
            afterBatch: { committed in
                guard let update = notifier.finishBatch(committed: committed) else { return }
                positions.committed.max(update.newest)
                notifier.tell(update)
            })
        self.clock = clock
        let (epoch, earlier, last) = try Self.loadMeta(configuration.path)
        self.epoch = epoch
        self.earlierEpochs = earlier
        positions.start(after: last)
    }

    /// Reads (creating on first start) the database's epoch, the epochs it was restored
    /// from, and its last feed position.
    private static func loadMeta(_ path: String) throws -> (String, [String: Int64], Int64) {
        let connection = try SQLiteConnection(path: path)
        let epoch: String
        if let existing = try connection.first("SELECT value FROM meta WHERE key = 'epoch'", as: { $0.text(0) }) {
            epoch = existing
        } else {
            epoch = FeedEpochs.random()
            try connection.execute("INSERT INTO meta (key, value) VALUES ('epoch', ?)", epoch)
        }
        let last = try connection.first("SELECT value FROM meta WHERE key = 'feed_position'", as: { Int64($0.text(0)) ?? 0 }) ?? 0
        return (epoch, try FeedEpochs.earlier(in: connection), last)
    }

    /// What the database's writer has done: batches, writes, busy and commit time.
    public var writerStats: WriterStats { database.writerStats }

    /// Finishes queued work and closes the database.
    public func close() async { await database.close() }

    public var committedPosition: Int64 { positions.committed.load(ordering: .acquiring) }

    public var issuedPosition: Int64 { positions.next.load(ordering: .acquiring) - 1 }

    public func acceptsCursor(epoch: String, position: Int64) -> Bool {
        if epoch == self.epoch { return position <= issuedPosition }
        return earlierEpochs[epoch].map { position <= $0 } ?? false
    }
}

extension SQLiteStore: ServerStore, StoreEngine {
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await database.read(body)
    }

    /// The one writer thread runs every write alone: no lock order to keep.
    func write<T: Sendable>(
        lockOrder: ConversationID?, _ body: @escaping @Sendable (SQLiteDatabase.WriteContext) throws -> T
    ) async throws -> T {
        try await database.write(body)
    }

    static func isUniqueViolation(_ error: any Error) -> Bool { (error as? SQLiteError)?.isUniqueViolation ?? false }

    static var runAgain: any Error { StoreError.internalFailure("a unique key taken within the one writer's own transaction") }

    /// A JSON array, read with `json_each`.
    static func textList(_ values: [String]) -> any StoreBindable { PostgresValue.textArray(values).sqlValue }

    static func textRows(_ placeholder: String) -> String {
        "(SELECT value, key + 1 AS n FROM json_each(\(placeholder))) AS list"
    }
}
