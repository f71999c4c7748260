import IMProtocol

/// Bot runners' leases and journals (`BotJournalStore`): one `bot_journals` row per bot
/// account, holding the lease and the snapshot, and its records in `bot_journal_records`.
/// Every write locks the bot's row first (`FOR UPDATE`: on PostgreSQL, nodes asking at
/// once for the same bot are served one after the other; SQLite's one writer does that
/// already), and a journal write is checked against the lease as it stands at its commit.
extension StoreEngine {
    public func acquireLease(_ userID: UserID, holder: String, ttl: Int64) async throws -> LeaseOutcome {
        try await write { [clock] context in
            let connection = context.connection
            let outcome = LeaseRecord.acquiring(
                try Self.lockedLease(userID, connection), holder: holder, ttl: ttl, now: clock().milliseconds)
            if case .granted(let lease) = outcome { try Self.store(lease, of: userID, connection) }
            return outcome
        }
    }

    public func renewLease(_ userID: UserID, holder: String, fence: Int64, ttl: Int64) async throws -> LeaseOutcome {
        try await write { [clock] context in
            let connection = context.connection
            let outcome = LeaseRecord.renewing(
                try Self.lockedLease(userID, connection), holder: holder, fence: fence, ttl: ttl,
                now: clock().milliseconds)
            if case .granted(let lease) = outcome { try Self.store(lease, of: userID, connection) }
            return outcome
        }
    }

    public func releaseLease(_ userID: UserID, fence: Int64) async throws -> Bool {
        try await write { context in
            try context.connection.execute(
                "UPDATE bot_journals SET holder = NULL, expires_at = 0 WHERE user_id = ?1 AND fence = ?2 AND holder IS NOT NULL",
                userID.rawValue, fence) == 1
        }
    }

    public func lease(of userID: UserID) async throws -> LeaseRecord? {
        try await read { connection in try Self.lease(userID, connection) }
    }

    public func journal(of userID: UserID, after: Int64?, limit: Int) async throws -> StoredJournal {
        try await read { connection in
            try connection.snapshot {
                guard let journal = try connection.first(
                    """
                    SELECT snapshot, snapshot_bytes, record_bytes, record_count, compacted_through
                    FROM bot_journals WHERE user_id = ?1
                    """,
                    userID.rawValue,
                    as: { StoredJournal(
                        snapshot: after == nil ? try $0.optionalText(0) : nil, recordBytes: Int(try $0.int(2)),
                        snapshotBytes: Int(try $0.int(1)), recordCount: Int(try $0.int(3)),
                        compactedThrough: try $0.int(4)) })
                else { return StoredJournal() }
                let rows = try connection.rows(
                    "SELECT seq, data FROM bot_journal_records WHERE user_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
                    userID.rawValue, after ?? 0, Int64(limit + 1), as: { (seq: try $0.int(0), data: try $0.text(1)) })
                return journal.page(of: rows, limit: limit)
            }
        }
    }

    public func appendJournal(_ userID: UserID, fence: Int64, records: [String], limit: Int) async throws
        -> StoredJournal
    {
        try await write { context in
            let connection = context.connection
            let (stored, last) = try Self.writableJournal(userID, fence: fence, connection)
            let sizes = try stored.appending(records, limit: limit)
            try connection.execute(
                "INSERT INTO bot_journal_records (user_id, seq, data) SELECT ?1, ?2 + n, value FROM \(Self.textRows("?3"))",
                userID.rawValue, last, Self.textList(records))
            try connection.execute(
                "UPDATE bot_journals SET record_bytes = ?1, record_count = ?2, last_seq = ?3 WHERE user_id = ?4",
                sizes.recordBytes, sizes.recordCount, last + Int64(records.count), userID.rawValue)
            return sizes
        }
    }

    public func replaceJournalSnapshot(_ userID: UserID, fence: Int64, snapshot: String, limit: Int) async throws
        -> StoredJournal
    {
        try await write { context in
            let connection = context.connection
            let (_, last) = try Self.writableJournal(userID, fence: fence, connection)
            let sizes = try StoredJournal.replaced(by: snapshot, through: last, limit: limit)
            try connection.execute("DELETE FROM bot_journal_records WHERE user_id = ?1", userID.rawValue)
            try connection.execute(
                """
                UPDATE bot_journals SET snapshot = ?1, snapshot_bytes = ?2, record_bytes = 0, record_count = 0,
                    compacted_through = ?3
                WHERE user_id = ?4
                """,
                snapshot, sizes.snapshotBytes, last, userID.rawValue)
            return sizes
        }
    }

    // MARK: In a transaction

    private static func lease(_ userID: UserID, _ connection: Connection, forUpdate: Bool = false) throws
        -> LeaseRecord?
    {
        try connection.first(
            "SELECT holder, fence, expires_at FROM bot_journals WHERE user_id = ?1\(forUpdate ? " FOR UPDATE" : "")",
            userID.rawValue,
            as: { LeaseRecord(holder: try $0.optionalText(0), fence: try $0.int(1), expiresAt: try $0.int(2)) })
    }

    /// The lease, its row locked until the transaction ends (created empty, never taken,
    /// on first use, so that two first takers also wait for each other).
    private static func lockedLease(_ userID: UserID, _ connection: Connection) throws -> LeaseRecord? {
        try connection.execute(
            "INSERT INTO bot_journals (user_id) VALUES (?1) ON CONFLICT (user_id) DO NOTHING", userID.rawValue)
        return try lease(userID, connection, forUpdate: true)
    }

    private static func store(_ lease: LeaseRecord, of userID: UserID, _ connection: Connection) throws {
        try connection.execute(
            "UPDATE bot_journals SET holder = ?1, fence = ?2, expires_at = ?3 WHERE user_id = ?4",
            lease.holder, lease.fence, lease.expiresAt, userID.rawValue)
    }

    /// The journal's sizes and the number of its newest record, its row locked, once the
    /// holding `fence` is found current; `.leaseLost` otherwise.
    private static func writableJournal(_ userID: UserID, fence: Int64, _ connection: Connection) throws
        -> (StoredJournal, last: Int64)
    {
        guard let row = try connection.first(
            """
            SELECT holder, fence, expires_at, snapshot_bytes, record_bytes, record_count, last_seq, compacted_through
            FROM bot_journals WHERE user_id = ?1 FOR UPDATE
            """,
            userID.rawValue,
            as: { (LeaseRecord(holder: try $0.optionalText(0), fence: try $0.int(1), expiresAt: try $0.int(2)),
                   StoredJournal(recordBytes: Int(try $0.int(4)), snapshotBytes: Int(try $0.int(3)),
                                 recordCount: Int(try $0.int(5)), compactedThrough: try $0.int(7)),
                   try $0.int(6)) }),
            LeaseRecord.admits(row.0, fence: fence)
        else { throw StoreError.leaseLost }
        return (row.1, row.2)
    }
}
