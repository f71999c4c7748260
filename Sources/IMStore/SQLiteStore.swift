import Foundation
import IMProtocol
import Synchronization

/// The storage of one server on a SQLite file: every `IMStorage` protocol.
///
/// Writes go through `SQLiteDatabase`'s group commit; feed positions come from one
/// counter that only the writer thread advances and that is persisted with each batch.
public final class SQLiteStore: Sendable {
    let database: SQLiteDatabase
    public let epoch: String
    let feed: FeedClock
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
        let feed = FeedClock()
        self.feed = feed
        self.database = try SQLiteDatabase(
            configuration: configuration, migrations: Schema.migrations,
            beforeCommit: { connection in try feed.persist(connection) },
            afterBatch: { committed in
                guard let update = feed.finishBatch(committed: committed) else { return }
                for observer in feed.observers.withLock({ $0 }) { observer(update) }
            })
        self.clock = clock
        let (epoch, last) = try Self.loadMeta(configuration.path)
        self.epoch = epoch
        feed.start(after: last)
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

    public var committedPosition: Int64 { feed.committed.load(ordering: .acquiring) }

    public var issuedPosition: Int64 { feed.next.load(ordering: .acquiring) - 1 }

    public func observeFeeds(_ observer: @escaping @Sendable (FeedUpdate) -> Void) {
        feed.observers.withLock { $0.append(observer) }
    }

    // MARK: Feed writing (writer thread only)

    /// Puts one event into the feed of every member of a conversation (or of `only`),
    /// and arranges for the feeds' observers to hear of it after commit.
    ///
    /// With `message` (a chat message and its conversation's kind and name) the entries
    /// travel with the update, so parked polls can be answered without reading their feeds.
    /// They are reported only if the job commits: a job that throws after this adds nothing.
    func fanOut(
        _ context: SQLiteDatabase.WriteContext, type: EventType, conversationID: ConversationID?,
        messageID: MessageID? = nil, payload: EventPayload? = nil, at: Timestamp,
        only users: [UserID]? = nil, message: (Message, kind: ConversationKind, name: String)? = nil
    ) throws {
        let payloadText = try payload.map { String(decoding: try WireJSON.encoder().encode($0), as: UTF8.self) }
        let base = feed.next.load(ordering: .relaxed)
        var recipients: [UserID]
        if let users {
            recipients = users
        } else if let conversationID {
            // One prepared INSERT per member rather than INSERT … SELECT with a window
            // function for the positions and RETURNING: the window sorts into a
            // temporary table and RETURNING buffers every row, which made this the most
            // expensive statement of a send (about a third of the writer's SQL time for
            // a one-to-one message). The primary key already yields members in user order.
            recipients = []
            try context.connection.query(
                "SELECT user_id FROM members WHERE conversation_id = ? ORDER BY user_id", [conversationID.rawValue]
            ) { row in recipients.append(UserID(rawValue: row.int(0))) }
        } else {
            recipients = []
        }
        guard !recipients.isEmpty else { return }
        for (offset, user) in recipients.enumerated() {
            try context.connection.execute(
                "INSERT INTO events (user_id, position, type, conversation_id, message_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                user.rawValue, base + Int64(offset), type.rawValue, conversationID?.rawValue, messageID?.rawValue,
                payloadText, at.milliseconds)
        }
        feed.next.store(base + Int64(recipients.count), ordering: .releasing)
        var feedMessage: FeedMessage?
        if let (message, kind, name) = message {
            let addresses =
                kind == .direct
                ? try recipients.map { try address(of: (kind, name), viewer: $0, context.connection) }
                : [try address(of: (kind, name), viewer: message.senderID, context.connection)]
            feedMessage = FeedMessage(message: message, kind: kind, addresses: addresses)
        }
        let entries = FeedFanOut(firstPosition: base, recipients: recipients, message: feedMessage)
        context.afterCommit { [feed] in feed.add(entries) }
    }
}

/// The feed position counter shared by all feeds, and who hears of new entries.
final class FeedClock: Sendable {
    /// The next position to hand out; advanced only on the writer thread.
    let next = Atomic<Int64>(1)
    /// The newest position whose batch has committed.
    let committed = Atomic<Int64>(0)
    /// The value of `next` last written to `meta`, so an idle batch writes nothing.
    private let persisted = Mutex<Int64>(1)
    /// Told of each committed batch's feed entries.
    let observers = Mutex<[@Sendable (FeedUpdate) -> Void]>([])
    /// Feed entries written by the batch being built: reported once it commits.
    private let batch = Mutex(FeedUpdate())

    /// Adds a committed job's entries to the batch's update (writer thread, after commit).
    func add(_ entries: FeedFanOut) {
        batch.withLock { update in
            for (offset, user) in entries.recipients.enumerated() {
                update.latest[user] = max(update.latest[user] ?? 0, entries.firstPosition + Int64(offset))
            }
            update.fanOuts.append(entries)
        }
    }

    /// Ends a batch: on commit, raises the committed position and returns what the batch
    /// added (nil when nothing); on failure, forgets it.
    func finishBatch(committed didCommit: Bool) -> FeedUpdate? {
        let update = batch.withLock { update -> FeedUpdate in
            defer { update = FeedUpdate() }
            return update
        }
        guard didCommit, let top = update.latest.values.max() else { return nil }
        committed.max(top)
        return update
    }

    func start(after last: Int64) {
        next.store(last + 1, ordering: .relaxed)
        committed.store(last, ordering: .releasing)
        persisted.withLock { $0 = last + 1 }
    }

    /// Saves the counter with the batch, so positions are never handed out twice after a
    /// restart.
    func persist(_ connection: SQLiteConnection) throws {
        let value = next.load(ordering: .relaxed)
        let changed = persisted.withLock { saved -> Bool in
            guard saved != value else { return false }
            saved = value
            return true
        }
        if changed {
            try connection.execute(
                "INSERT INTO meta (key, value) VALUES ('feed_position', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                String(value - 1))
        }
    }
}

extension Atomic where Value == Int64 {
    /// Raises the value to at least `value`.
    func max(_ value: Int64) {
        var current = load(ordering: .relaxed)
        while current < value {
            let (exchanged, original) = compareExchange(
                expected: current, desired: value, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }
}

/// The fields of a non-message event, stored as JSON in its feed row.
struct EventPayload: Codable, Sendable {
    var user: User?
    var by: String?
    var info: ConversationInfo?
    var seq: Int64?
    var reason: String?
    var until: Timestamp?
}
