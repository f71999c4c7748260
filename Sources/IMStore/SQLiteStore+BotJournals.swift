import IMProtocol

/// Bot runners' leases and journals (`BotJournalStore`): one `bot_journals` row per bot
/// account, holding the lease and the snapshot, and its records in `bot_journal_records`.
/// Every check and the write it allows happen in one write job, so two runners asking at
/// once are served one after the other.
extension SQLiteStore: BotJournalStore {
    public func acquireLease(_ userID: UserID, holder: String, ttl: Int64) async throws -> LeaseOutcome {
        try await database.write { [self] context in
            let connection = context.connection
            let outcome = LeaseRecord.acquiring(
                try Self.lease(userID, connection), holder: holder, ttl: ttl, now: clock().milliseconds)
            if case .granted(let lease) = outcome { try Self.store(lease, of: userID, connection) }
            return outcome
        }
    }

    public func renewLease(_ userID: UserID, holder: String, fence: Int64, ttl: Int64) async throws -> LeaseOutcome {
        try await database.write { [self] context in
            let connection = context.connection
            let outcome = LeaseRecord.renewing(
                try Self.lease(userID, connection), holder: holder, fence: fence, ttl: ttl, now: clock().milliseconds)
            if case .granted(let lease) = outcome { try Self.store(lease, of: userID, connection) }
            return outcome
        }
    }

    public func releaseLease(_ userID: UserID, fence: Int64) async throws -> Bool {
        try await database.write { context in
            try context.connection.execute(
                "UPDATE bot_journals SET holder = NULL, expires_at = 0 WHERE user_id = ? AND fence = ? AND holder IS NOT NULL",
                userID.rawValue, fence) == 1
        }
    }

    public func lease(of userID: UserID) async throws -> LeaseRecord? {
        try await database.read { connection in try Self.lease(userID, connection) }
    }

    public func journal(of userID: UserID, after: Int64?, limit: Int) async throws -> StoredJournal {
        try await database.read { connection in
            try connection.snapshot {
                guard let journal = try connection.first(
                    """
                    SELECT snapshot, snapshot_bytes, record_bytes, record_count, compacted_through
                    FROM bot_journals WHERE user_id = ?
                    """,
                    userID.rawValue,
                    as: { StoredJournal(
                        snapshot: after == nil ? $0.optionalText(0) : nil, recordBytes: Int($0.int(2)),
                        snapshotBytes: Int($0.int(1)), recordCount: Int($0.int(3)), compactedThrough: $0.int(4)) })
                else { return StoredJournal() }
                let rows = try connection.rows(
                    "SELECT seq, data FROM bot_journal_records WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                    userID.rawValue, after ?? 0, limit + 1, as: { (seq: $0.int(0), data: $0.text(1)) })
                return journal.page(of: rows, limit: limit)
            }
        }
    }

    public func appendJournal(_ userID: UserID, fence: Int64, records: [String], limit: Int) async throws
        -> StoredJournal
    {
        try await database.write { context in
            let connection = context.connection
            let (stored, last) = try Self.writableJournal(userID, fence: fence, connection)
            let sizes = try stored.appending(records, limit: limit)
            var next = last + 1
            for record in records {
                try connection.execute(
                    "INSERT INTO bot_journal_records (user_id, seq, data) VALUES (?, ?, ?)", userID.rawValue, next, record)
                next += 1
            }
            try connection.execute(
                "UPDATE bot_journals SET record_bytes = ?, record_count = ?, last_seq = ? WHERE user_id = ?",
                sizes.recordBytes, sizes.recordCount, next - 1, userID.rawValue)
            return sizes
        }
    }

    public func replaceJournalSnapshot(_ userID: UserID, fence: Int64, snapshot: String, limit: Int) async throws
        -> StoredJournal
    {
        try await database.write { context in
            let connection = context.connection
            let (_, last) = try Self.writableJournal(userID, fence: fence, connection)
            let sizes = try StoredJournal.replaced(by: snapshot, through: last, limit: limit)
            try connection.execute("DELETE FROM bot_journal_records WHERE user_id = ?", userID.rawValue)
            try connection.execute(
                """
                UPDATE bot_journals SET snapshot = ?, snapshot_bytes = ?, record_bytes = 0, record_count = 0,
                    compacted_through = ?
                WHERE user_id = ?
                """,
                snapshot, sizes.snapshotBytes, last, userID.rawValue)
            return sizes
        }
    }

    // MARK: In a transaction

    private static func lease(_ userID: UserID, _ connection: SQLiteConnection) throws -> LeaseRecord? {
        try connection.first(
            "SELECT holder, fence, expires_at FROM bot_journals WHERE user_id = ?", userID.rawValue,
            as: { LeaseRecord(holder: $0.optionalText(0), fence: $0.int(1), expiresAt: $0.int(2)) })
    }

    private static func store(_ lease: LeaseRecord, of userID: UserID, _ connection: SQLiteConnection) throws {
        try connection.execute(
            """
            INSERT INTO bot_journals (user_id, holder, fence, expires_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET holder = excluded.holder, fence = excluded.fence,
                expires_at = excluded.expires_at
            """,
            userID.rawValue, lease.holder, lease.fence, lease.expiresAt)
    }

    /// The journal's sizes and the number of its newest record, once the holding `fence`
    /// is found current; `.leaseLost` otherwise.
    private static func writableJournal(_ userID: UserID, fence: Int64, _ connection: SQLiteConnection) throws
        -> (StoredJournal, last: Int64)
    {
        guard let row = try connection.first(
            """
            SELECT holder, fence, expires_at, snapshot_bytes, record_bytes, record_count, last_seq, compacted_through
            FROM bot_journals WHERE user_id = ?
            """,
            userID.rawValue,
            as: { (LeaseRecord(holder: $0.optionalText(0), fence: $0.int(1), expiresAt: $0.int(2)),
                   StoredJournal(recordBytes: Int($0.int(4)), snapshotBytes: Int($0.int(3)), recordCount: Int($0.int(5)),
                                 compactedThrough: $0.int(7)),
                   $0.int(6)) }),
            LeaseRecord.admits(row.0, fence: fence)
        else { throw StoreError.leaseLost }
        return (row.1, row.2)
    }
}
