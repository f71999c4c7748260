import Foundation
import IMProtocol

/// Moves a server's SQLite database into an empty PostgreSQL database, keeping
/// everything as it was: every row with its id, the epoch and every feed position, so
/// that cursors handed out before stay valid (same epoch, same positions), logins go on
/// working and nothing is told twice or lost.
///
/// The SQLite database is brought to its newest schema first (as a server start would),
/// then read in one snapshot; the PostgreSQL one gets its schema and the rows in one
/// transaction, so a failure leaves it as empty as it was. Stop the server first: writes
/// after the snapshot would not be copied.
public struct SQLiteToPostgres: Sendable {
    /// How many rows went into each table.
    public struct Report: Sendable, Equatable {
        public var rows: [(table: String, count: Int)]
        public var epoch: String
        /// The feed clock after the copy: the next position handed out follows it.
        public var position: Int64

        public static func == (lhs: Report, rhs: Report) -> Bool {
            lhs.rows.map(\.table) == rhs.rows.map(\.table) && lhs.rows.map(\.count) == rhs.rows.map(\.count)
                && lhs.epoch == rhs.epoch && lhs.position == rhs.position
        }
    }

    private enum Kind {
        case integer, text, bytes, boolean
    }

    /// The tables in the order their references need, with the columns of schema version
    /// 10 that PostgreSQL has (not `messages.position`, SQLite's alone).
    private static let tables: [(name: String, columns: [(String, Kind)])] = [
        ("users", [("id", .integer), ("username", .text), ("password_hash", .text), ("nickname", .text),
                   ("avatar_url", .text), ("signature", .text), ("attrs", .text), ("is_bot", .boolean),
                   ("is_admin", .boolean), ("created_at", .integer), ("feed_floor", .integer),
                   ("suspended_at", .integer), ("deleted_at", .integer)]),
        ("tokens", [("id", .integer), ("hash", .bytes), ("user_id", .integer), ("device", .text),
                    ("created_at", .integer), ("expires_at", .integer), ("revoked_at", .integer),
                    ("revoked_reason", .text), ("last_used_at", .integer)]),
        ("contacts", [("user_id", .integer), ("contact_id", .integer), ("created_at", .integer)]),
        ("conversations", [("id", .integer), ("kind", .text), ("name", .text), ("title", .text), ("logo_url", .text),
                           ("description", .text), ("created_by", .integer), ("created_at", .integer),
                           ("last_seq", .integer), ("last_message_id", .integer), ("updated_at", .integer),
                           ("member_count", .integer), ("join_policy", .text), ("new_members", .text),
                           ("slow_mode", .integer), ("info_editable_by", .text)]),
        ("members", [("conversation_id", .integer), ("user_id", .integer), ("role", .text), ("joined_at", .integer),
                     ("last_read_seq", .integer), ("muted_until", .integer), ("joined_position", .integer),
                     ("restricted", .boolean), ("last_posted_at", .integer), ("joined_seq", .integer)]),
        ("former_members", [("user_id", .integer), ("left_position", .integer), ("conversation_id", .integer),
                            ("joined_position", .integer), ("joined_seq", .integer)]),
        ("invites", [("conversation_id", .integer), ("user_id", .integer), ("invited_by", .integer),
                     ("created_at", .integer)]),
        ("messages", [("id", .integer), ("conversation_id", .integer), ("seq", .integer), ("type", .text),
                      ("sender_id", .integer), ("text", .text), ("client_msg_id", .text), ("reply_to", .integer),
                      ("created_at", .integer), ("deleted_at", .integer), ("edited_at", .integer)]),
        ("message_versions", [("message_id", .integer), ("until_position", .integer), ("text", .text),
                              ("edited_at", .integer)]),
        ("message_quotas", [("user_id", .integer), ("day", .integer), ("bytes", .integer)]),
        ("conversation_events", [("position", .integer), ("conversation_id", .integer), ("type", .text),
                                 ("message_id", .integer), ("payload", .text), ("created_at", .integer)]),
        ("user_events", [("user_id", .integer), ("position", .integer), ("type", .text), ("conversation_id", .integer),
                         ("message_id", .integer), ("payload", .text), ("created_at", .integer)]),
        ("bans", [("conversation_id", .integer), ("user_id", .integer), ("banned_by", .integer), ("reason", .text),
                  ("until", .integer), ("created_at", .integer)]),
        ("join_requests", [("conversation_id", .integer), ("user_id", .integer), ("created_at", .integer)]),
        ("blocks", [("user_id", .integer), ("blocked_id", .integer), ("created_at", .integer)]),
        ("media", [("id", .text), ("owner_id", .integer), ("content_type", .text), ("bytes", .bytes),
                   ("created_at", .integer), ("size", .integer), ("sha256", .bytes)]),
        ("bot_journals", [("user_id", .integer), ("holder", .text), ("fence", .integer), ("expires_at", .integer),
                          ("snapshot", .text), ("snapshot_bytes", .integer), ("record_bytes", .integer),
                          ("record_count", .integer), ("last_seq", .integer), ("compacted_through", .integer)]),
        ("bot_journal_records", [("user_id", .integer), ("seq", .integer), ("data", .text)]),
        ("telegram_bots", [("user_id", .integer), ("acknowledged", .integer), ("webhook", .text), ("settings", .text)]),
        ("notices", [("id", .integer), ("conversation_id", .integer), ("sender_id", .integer), ("user_id", .integer),
                     ("client_id", .text), ("text", .text), ("reply_to", .integer), ("created_at", .integer)]),
    ]

    /// Tables whose `id` comes from a sequence, set past the copied ids.
    private static let sequences = ["users", "tokens", "conversations", "messages", "notices"]

    /// The SQLite schema version this copy knows.
    static let sqliteVersion = 10

    public let directory: String
    public let target: PostgresConfiguration

    public init(directory: String, target: PostgresConfiguration) {
        self.directory = directory
        self.target = target
    }

    /// Copies everything.
    public func run() async throws -> Report {
        guard FileManager.default.fileExists(atPath: directory + "/switchboard.sqlite") else {
            throw StoreError.notFound("no Switchboard database in \(directory) (switchboard.sqlite)")
        }
        // Brings the file to the newest schema, as a server starting on it would.
        await (try SQLiteStore(directory: directory, readers: 1)).close()
        let thread = DedicatedThread(name: "sqlite-to-postgres")
        defer { thread.stop() }
        return try await thread.run { [self] in try copy() }
    }

    private func copy() throws -> Report {
        let source = try SQLiteConnection(path: directory + "/switchboard.sqlite", readOnly: true)
        let version = Int(try source.scalar("PRAGMA user_version") ?? 0)
        guard version == Self.sqliteVersion else {
            throw StoreError.incompatibleSchema(
                "\(directory) has SQLite schema version \(version); this switchboard moves version \(Self.sqliteVersion): use the switchboard that wrote it")
        }
        // Each statement is parsed once: the many shapes of a copy would only fill a cache.
        var configuration = target
        configuration.statementCacheCapacity = 0
        let destination = try PostgresConnection(configuration: configuration)
        try PostgresMigrator(migrations: PostgresSchema.migrations).migrate(destination)
        return try source.snapshot {
            try destination.transaction { () -> Report in
                try requireEmpty(destination)
                var rows: [(String, Int)] = []
                for table in Self.tables {
                    let count = try copy(table.name, table.columns, from: source, to: destination)
                    rows.append((table.name, count))
                }
                guard let epoch = try source.first("SELECT value FROM meta WHERE key = 'epoch'", as: { $0.text(0) }) else {
                    throw StoreError.incompatibleSchema("\(directory) has no epoch: was it ever opened by a server?")
                }
                let saved = try source.first(
                    "SELECT value FROM meta WHERE key = 'feed_position'", as: { Int64($0.text(0)) ?? 0 }) ?? 0
                let stored = try destination.first(
                    "SELECT greatest((SELECT max(position) FROM conversation_events), (SELECT max(position) FROM user_events), 0)",
                    as: { try $0.int(0) }) ?? 0
                let position = max(saved, stored)
                try destination.execute("INSERT INTO meta (key, value) VALUES ('epoch', $1)", epoch)
                // The epochs of databases this one was restored from, whose cursors still read on.
                if let earlier = try source.first(
                    "SELECT value FROM meta WHERE key = ?", FeedEpochs.key, as: { $0.text(0) })
                {
                    try destination.execute("INSERT INTO meta (key, value) VALUES ($1, $2)", FeedEpochs.key, earlier)
                }
                try destination.execute("UPDATE feed_clock SET position = $1", position)
                for table in Self.sequences {
                    // Table names are this file's constants, never input.
                    try destination.execute(
                        "SELECT setval(pg_get_serial_sequence($1, 'id'), greatest((SELECT max(id) FROM \(table)), 1))",
                        table)
                }
                return Report(rows: rows, epoch: epoch, position: position)
            }
        }
    }

    private func requireEmpty(_ connection: PostgresConnection) throws {
        let used = try connection.first(
            "SELECT EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM meta WHERE key = 'epoch')", as: { try $0.bool(0) })
        if used == true {
            throw StoreError.conflict(
                "the PostgreSQL database \(connection.target) holds a Switchboard already: migrate into an empty database")
        }
    }

    /// Copies one table in statements of many rows each; returns how many.
    private func copy(
        _ table: String, _ columns: [(String, Kind)], from source: SQLiteConnection, to destination: PostgresConnection
    ) throws -> Int {
        let names = columns.map(\.0).joined(separator: ", ")
        let perStatement = max(1, min(500, 60_000 / columns.count))
        var batch: [any PostgresBindable] = []
        var rowsInBatch = 0
        var total = 0
        func flush() throws {
            guard rowsInBatch > 0 else { return }
            // Only placeholders are generated here; every value is bound.
            let tuples = (0..<rowsInBatch).map { row in
                "(" + (0..<columns.count).map { "$\(row * columns.count + $0 + 1)" }.joined(separator: ", ") + ")"
            }
            try destination.execute("INSERT INTO \(table) (\(names)) VALUES \(tuples.joined(separator: ", "))", batch)
            total += rowsInBatch
            batch.removeAll(keepingCapacity: true)
            rowsInBatch = 0
        }
        try source.query("SELECT \(names) FROM \(table)", []) { row in
            for (index, (_, kind)) in columns.enumerated() {
                let column = Int32(index)
                if row.isNull(column) {
                    batch.append(PostgresValue.null)
                    continue
                }
                switch kind {
                case .integer: batch.append(row.int(column))
                case .text: batch.append(row.text(column))
                case .bytes: batch.append(row.blob(column))
                case .boolean: batch.append(row.bool(column))
                }
            }
            rowsInBatch += 1
            if rowsInBatch == perStatement { try flush() }
        }
        try flush()
        return total
    }
}
