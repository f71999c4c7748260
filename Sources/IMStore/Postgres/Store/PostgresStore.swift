import Foundation
import IMProtocol
import Lifecycle
import Synchronization

/// The storage of a server node on a PostgreSQL database that several nodes may share:
/// every `IMStorage` protocol, with the feed layout of the SQLite store
/// (docs/architecture.md).
///
/// Writes go through this node's `PostgresWriter` (group commit); reads through a
/// bounded `PostgresPool`. Feed positions come from the `feed_clock` row, taken last in
/// each batch, so they ascend in commit order across all nodes; each batch sends one
/// notification with what it committed (`ClusterNotice`), and `cluster` (a service the
/// server runs) listens for the other nodes' and tells the feed observers of their
/// commits too, in position order (`FeedOrder`). Where the SQLite store keeps caches
/// (usernames), this one reads the rows: another node may change them.
public final class PostgresStore: Sendable {
    /// Where the database is and how many sessions this node opens to it.
    public struct Configuration: Sendable {
        /// The database.
        public var connection: PostgresConfiguration
        /// Sessions for reads at most (the pool's bound).
        public var readConnections: Int
        /// Requests waiting for a read session at most; more get 503 at once.
        public var maxWaiting: Int
        /// How long a read waits for a session.
        public var acquireTimeout: Duration
        /// Sessions committing this node's writes.
        public var writerSessions: Int
        /// Write jobs committed together at most.
        public var maxBatch: Int

        /// A configuration with the defaults: 8 read sessions, 1 writer, batches of 256.
        public init(
            connection: PostgresConfiguration, readConnections: Int = 8, maxWaiting: Int = 1000,
            acquireTimeout: Duration = .seconds(5), writerSessions: Int = 1, maxBatch: Int = 256
        ) {
            self.connection = connection
            self.readConnections = readConnections
            self.maxWaiting = maxWaiting
            self.acquireTimeout = acquireTimeout
            self.writerSessions = writerSessions
            self.maxBatch = maxBatch
        }
    }

    public let epoch: String
    /// The epochs of databases this one was restored from (brought along by a move from
    /// SQLite), with the last position each may name.
    let earlierEpochs: [String: Int64]
    /// This process among the nodes (random at every open): how it tells its own
    /// notifications from the others'.
    public let node: String
    let pool: PostgresPool
    let writer: PostgresWriter
    let order: FeedOrder
    let notifier: FeedNotifier
    let clock: @Sendable () -> Timestamp
    /// Listens for the other nodes; run it as a service (the server does).
    public let cluster: PostgresClusterFeed
    /// The revocation epoch when the store opened: this node starts knowing every
    /// revocation up to it (it has no logins cached yet).
    public let openedAtRevocationEpoch: Int64
    /// What the node should say at start about the database's set-up (who may connect).
    public let warnings: [String]

    /// Opens the database: applies the migrations (once, whichever node starts first),
    /// creates the epoch on first use and reads the counters.
    public static func open(
        _ configuration: Configuration, clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() },
        time: any TimeSource = SystemTime()
    ) async throws -> PostgresStore {
        let pool = PostgresPool(
            configuration: PostgresPool.Configuration(
                connection: configuration.connection, maxConnections: configuration.readConnections,
                maxWaiting: configuration.maxWaiting, acquireTimeout: configuration.acquireTimeout),
            time: time)
        do {
            let (epoch, earlier, position, revocations, publicConnects) = try await pool.withConnection { connection in
                try PostgresMigrator(migrations: PostgresSchema.migrations).migrate(connection)
                return try connection.transaction { () -> (String, [String: Int64], Int64, Int64, Bool) in
                    var generator = SystemRandomNumberGenerator()
                    let fresh = String(UInt32.random(in: 1...UInt32.max, using: &generator), radix: 36)
                    try connection.execute(
                        "INSERT INTO meta (key, value) VALUES ('epoch', $1) ON CONFLICT (key) DO NOTHING", fresh)
                    let epoch = try connection.first("SELECT value FROM meta WHERE key = 'epoch'") { try $0.text(0) }
                    let position = try connection.first("SELECT position FROM feed_clock") { try $0.int(0) }
                    let revocations = try connection.first("SELECT epoch FROM revocation_clock") { try $0.int(0) }
                    guard let epoch, let position, let revocations else {
                        throw StoreError.incompatibleSchema("the database \(connection.target) lacks its counters")
                    }
                    let earlier = try connection.first(
                        "SELECT value FROM meta WHERE key = $1", FeedEpochs.key, as: { try $0.text(0) })
                    let publicConnects = try connection.first(
                        "SELECT has_database_privilege('public', current_database(), 'CONNECT')", as: { try $0.bool(0) })
                    return (epoch, FeedEpochs.parse(earlier), position, revocations, publicConnects ?? false)
                }
            }
            var warnings: [String] = []
            if publicConnects {
                warnings.append(
                    "any role may connect to this database (PUBLIC holds CONNECT), and so listen to the nodes' "
                        + "channel and send on it; as the database's owner: REVOKE CONNECT ON DATABASE <name> FROM PUBLIC, "
                        + "then GRANT CONNECT to the nodes' role (docs/operations.md)")
            }
            return PostgresStore(
                configuration: configuration, pool: pool, epoch: epoch, earlierEpochs: earlier, position: position,
                revocationEpoch: revocations, warnings: warnings, clock: clock, time: time)
        } catch {
            await pool.close()
            throw error
        }
    }

    private init(
        configuration: Configuration, pool: PostgresPool, epoch: String, earlierEpochs: [String: Int64],
        position: Int64, revocationEpoch: Int64, warnings: [String], clock: @escaping @Sendable () -> Timestamp,
        time: any TimeSource
    ) {
        self.earlierEpochs = earlierEpochs
        self.warnings = warnings
        var generator = SystemRandomNumberGenerator()
        let node = String(UInt64.random(in: 1...UInt64.max, using: &generator) % 2_821_109_907_456, radix: 36)
        let notifier = FeedNotifier()
        let order = FeedOrder(notifier: notifier)
        order.start(after: position)
        self.notifier = notifier
        self.pool = pool
        self.epoch = epoch
        self.node = node
        self.order = order
        self.clock = clock
        self.openedAtRevocationEpoch = revocationEpoch
        self.writer = PostgresWriter(
            configuration: PostgresWriter.Configuration(
                connection: configuration.connection, sessions: configuration.writerSessions,
                maxBatch: configuration.maxBatch),
            beforeCommit: { connection, batch in
                try Self.finish(batch, on: connection, node: node, order: order, now: clock())
            })
        self.cluster = PostgresClusterFeed(
            connection: configuration.connection, node: node, order: order, pool: pool, time: time)
    }

    /// Finishes queued writes and closes every session.
    public func close() async {
        await writer.close()
        await pool.close()
    }

    /// What this node's writer has done: batches, writes, busy and commit time.
    public var writerStats: WriterStats { writer.counters.snapshot }

    /// The read sessions' pool, for metrics.
    public var poolStatistics: PostgresPool.Statistics { pool.statistics }

    /// Every position up to this one is committed and was told to the feed observers.
    public var committedPosition: Int64 { order.through }

    /// The newest position this node has heard of (its own or another node's).
    public var issuedPosition: Int64 { order.newest }

    /// This epoch up to the newest position heard of (a cursor past it is checked against
    /// the clock by the server), or an earlier epoch up to its last position.
    public func acceptsCursor(epoch: String, position: Int64) -> Bool {
        if epoch == self.epoch { return position <= issuedPosition }
        return earlierEpochs[epoch].map { position <= $0 } ?? false
    }

    public func newestIssuedPosition() async throws -> Int64 {
        let position = try await pool.withConnection { connection in
            try connection.first("SELECT position FROM feed_clock") { try $0.int(0) } ?? 0
        }
        return max(position, order.newest)
    }

    /// The feed clock, read afresh: this node may not have read yet what another node
    /// committed just before (it reads the tables when it hears of a commit), and a cursor
    /// from before that commit would hand its client events older than its start.
    public func freshCursorPosition() async throws -> Int64 {
        let clock = try await pool.withConnection { connection in
            try connection.first("SELECT position FROM feed_clock") { try $0.int(0) } ?? 0
        }
        return max(clock, order.through)
    }

    // MARK: Running statements

    /// Runs `body` on a read session (outside any transaction: each statement sees what
    /// was committed when it started).
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await pool.withConnection(body)
    }

    /// Runs `body` as a write job of this node's next batch; `lockOrder` is the
    /// conversation whose row the job locks first, if any (see `PostgresWriter`).
    func write<T: Sendable>(lockOrder: ConversationID?, _ body: @escaping @Sendable (PostgresWriteContext) throws -> T)
        async throws -> T
    {
        try await writer.write(order: lockOrder?.rawValue, body)
    }
}

extension PostgresStore: ServerStore, StoreEngine {
    static func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? PostgresError)?.kind == .uniqueViolation
    }

    static var runAgain: any Error { PostgresWriter.RunAgain() }

    static func textList(_ values: [String]) -> any StoreBindable { PostgresValue.textArray(values) }

    static func textRows(_ placeholder: String) -> String {
        "unnest(\(placeholder)::text[]) WITH ORDINALITY AS list(value, n)"
    }
}
