import IMProtocol

/// Logins ended after some revocation epoch, read from the log every node writes.
public struct RevocationLog: Sendable, Equatable {
    /// The newest epoch: the reader knows everything up to it once it applied these.
    public var epoch: Int64
    /// Logins ended one by one.
    public var tokens: [Int64]
    /// Accounts all of whose logins ended (password change, suspension, deletion).
    public var users: [UserID]
    /// False when the log no longer reaches back to the epoch asked after (it is pruned
    /// after a day): the reader must forget every login it holds.
    public var complete: Bool

    public init(epoch: Int64, tokens: [Int64] = [], users: [UserID] = [], complete: Bool = true) {
        self.epoch = epoch
        self.tokens = tokens
        self.users = users
        self.complete = complete
    }
}

/// What several server nodes on one database coordinate through it besides the feeds.
extension PostgresStore {
    /// Claims the event poll of a login for this node; returns the claim's generation.
    /// The other nodes hear of it when it commits and end their polls of that login.
    public func claimPoll(tokenID: Int64) async throws -> Int64 {
        try await write { [node, clock] context in
            guard let generation = try context.connection.first(
                """
                INSERT INTO poll_claims (token_id, generation, node, claimed_at) VALUES ($1, 1, $2, $3)
                ON CONFLICT (token_id) DO UPDATE
                    SET generation = poll_claims.generation + 1, node = $2, claimed_at = $3
                RETURNING generation
                """,
                tokenID, node, clock().milliseconds, as: { try $0.int(0) })
            else { throw StoreError.internalFailure("poll claim returned nothing") }
            context.batch.claims.append((tokenID, generation))
            return generation
        }
    }

    /// The revocations logged after `epoch`, in one short read (every request of every
    /// node makes it, see `RevocationWatch` in the server).
    public func revocations(after epoch: Int64) async throws -> RevocationLog {
        try await read { connection in
            let rows = try connection.rows(
                """
                SELECT (SELECT epoch FROM revocation_clock), r.epoch, r.token_id, r.user_id
                FROM (SELECT 1) AS one LEFT JOIN revocations r ON r.epoch > $1 ORDER BY r.epoch
                """,
                epoch, as: { (try $0.int(0), try $0.optionalInt(1), try $0.optionalInt(2), try $0.optionalInt(3)) })
            let newest = rows.first?.0 ?? epoch
            var log = RevocationLog(epoch: max(newest, epoch))
            for (_, entry, token, user) in rows where entry != nil {
                if let token { log.tokens.append(token) }
                if let user { log.users.append(UserID(rawValue: user)) }
            }
            log.complete = newest <= epoch || rows.first?.1 == epoch + 1
            return log
        }
    }

    /// Removes poll claims older than `before` (logins that stopped polling long ago).
    public func pruneClaims(before: Timestamp) async throws {
        _ = try await read { connection in
            try connection.execute("DELETE FROM poll_claims WHERE claimed_at < $1", before.milliseconds)
        }
    }
}

extension PostgresStore: LoginAttemptStore {
    /// One short transaction on a read session (no feed is written, so not through the
    /// writer): the three records and the account's trusted addresses, locked in one
    /// order, changed and written back.
    public func updateLoginCounters<T: Sendable>(
        username: String, address: String, waitingAtMost: Duration?,
        _ change: @escaping @Sendable (inout LoginCounters) -> T
    ) async throws -> T {
        let keys = [("account", username), ("address", address), ("pair", username + "\u{1F}" + address)]
        let wait = waitingAtMost.map { max(1, $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
        return try await pool.transaction { connection in
            if let wait { try connection.execute("SELECT set_config('lock_timeout', $1, true)", "\(wait)ms") }
            try connection.execute(
                """
                INSERT INTO login_counters (scope, key) SELECT * FROM unnest($1::text[], $2::text[])
                ON CONFLICT DO NOTHING
                """,
                PostgresValue.textArray(keys.map(\.0)), PostgresValue.textArray(keys.map(\.1)))
            var counters = LoginCounters()
            let rows = try connection.rows(
                """
                SELECT scope, failures, pending, first_failure, locked_until, pending_since FROM login_counters
                WHERE (scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY scope, key FOR UPDATE
                """,
                PostgresValue.textArray(keys.map(\.0)), PostgresValue.textArray(keys.map(\.1)),
                as: { row in
                    (try row.text(0), LoginCounters.Counter(
                        failures: Int(try row.int(1)), pending: Int(try row.int(2)), firstFailure: try row.int(3),
                        lockedUntil: try row.int(4), pendingSince: try row.int(5)))
                })
            for (scope, counter) in rows {
                switch scope {
                case "account": counters.account = counter
                case "address": counters.address = counter
                default: counters.pair = counter
                }
            }
            for (trustedAddress, at) in try connection.rows(
                "SELECT address, at FROM login_trust WHERE username = $1", username,
                as: { (try $0.text(0), try $0.int(1)) })
            {
                counters.trusted[trustedAddress] = at
            }
            let before = counters
            let result = change(&counters)
            let written = [counters.account, counters.address, counters.pair]
            let unchanged = [before.account, before.address, before.pair]
            for ((scope, key), (counter, old)) in zip(keys, zip(written, unchanged)) where counter != old {
                try connection.execute(
                    """
                    UPDATE login_counters SET failures = $3, pending = $4, first_failure = $5, locked_until = $6,
                        pending_since = $7
                    WHERE scope = $1 AND key = $2
                    """,
                    scope, key, counter.failures, counter.pending, counter.firstFailure, counter.lockedUntil,
                    counter.pendingSince)
            }
            if counters.trusted != before.trusted {
                try connection.execute("DELETE FROM login_trust WHERE username = $1", username)
                let addresses = Array(counters.trusted.keys)
                try connection.execute(
                    "INSERT INTO login_trust (username, address, at) SELECT $1, * FROM unnest($2::text[], $3::int8[])",
                    username, PostgresValue.textArray(addresses),
                    PostgresValue.integerArray(addresses.map { counters.trusted[$0] ?? 0 }))
            }
            return result
        }
    }

    public func pruneLoginCounters(staleBefore: Int64, now: Int64, trustedBefore: Int64) async throws {
        try await pool.transaction { connection in
            try connection.execute(
                "DELETE FROM login_counters WHERE first_failure < $1 AND locked_until <= $2 AND (pending = 0 OR pending_since < $1)",
                staleBefore, now)
            try connection.execute("DELETE FROM login_trust WHERE at < $1", trustedBefore)
        }
    }
}
