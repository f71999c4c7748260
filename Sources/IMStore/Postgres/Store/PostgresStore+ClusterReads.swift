import IMProtocol

/// What a node reads from the tables when a notification says another node committed
/// something (`PostgresClusterFeed`): the truth a notification only hints at.
extension PostgresStore {
    /// What one read of the committed feeds found.
    struct CommittedFeeds {
        /// The feed clock: every position up to it is committed.
        var clock: Int64
        /// The read covers the positions up to this one (the clock, or less when the read
        /// was bounded).
        var through: Int64
        /// The events in the range that reached someone, in position order, each with its
        /// recipients ascending.
        var entries: [FeedEntry]
    }

    /// The events after `after` (at most `atMost` positions, up to the feed clock) and whose
    /// feeds they reached: a conversation's members at the event's position (as the feed
    /// read has them, `FeedVisibility` included), and the users whose own events they are.
    /// One statement, one snapshot: the clock and every event up to it.
    static func committedFeeds(after: Int64, atMost: Int64, _ connection: PostgresConnection) throws -> CommittedFeeds {
        let rows = try connection.rows(committedFeedsSQL, after, atMost) { row in
            (clock: try row.int(0), through: try row.int(1), position: try row.optionalInt(2), users: try row.value(3))
        }
        var entries: [FeedEntry] = []
        for row in rows {
            guard let position = row.position, case .integerArray(let users) = row.users, !users.isEmpty else { continue }
            entries.append(
                FeedEntry(position: position, recipients: users.map { UserID(rawValue: $0) }, ascending: true))
        }
        return CommittedFeeds(
            clock: rows.first?.clock ?? after, through: max(after, rows.first?.through ?? after), entries: entries)
    }

    /// One row per event (each event's recipients aggregated in order: a message to a
    /// group of 1,000 is one row, not 1,000).
    private static let committedFeedsSQL = """
        WITH clock AS (SELECT position AS c FROM feed_clock), bound AS (SELECT least($1 + $2, c) AS b FROM clock)
        SELECT (SELECT c FROM clock), (SELECT b FROM bound), x.position, x.users
        FROM (SELECT 1) AS one LEFT JOIN (
            SELECT e.position, (
                SELECT array_agg(DISTINCT r.user_id ORDER BY r.user_id) FROM (
                    SELECT m.user_id FROM members m
                    WHERE m.conversation_id = e.conversation_id AND m.joined_position <= e.position
                        AND \(FeedVisibility.sql(kind: "cv.kind", messageSeq: "ms.seq", joinedSeq: "m.joined_seq"))
                    UNION ALL
                    SELECT f.user_id FROM former_members f
                    WHERE f.conversation_id = e.conversation_id AND f.left_position >= e.position
                        AND f.joined_position <= e.position
                        AND \(FeedVisibility.sql(kind: "cv.kind", messageSeq: "ms.seq", joinedSeq: "f.joined_seq"))
                ) r) AS users
            FROM conversation_events e
            JOIN conversations cv ON cv.id = e.conversation_id
            CROSS JOIN LATERAL (
                SELECT CASE WHEN cv.kind = 'room' THEN \(FeedVisibility.messageSeqSQL("e.message_id")) END AS seq) ms
            WHERE e.position > $1 AND e.position <= (SELECT b FROM bound)
            UNION ALL
            SELECT ue.position, array_agg(ue.user_id ORDER BY ue.user_id) FROM user_events ue
            WHERE ue.position > $1 AND ue.position <= (SELECT b FROM bound) GROUP BY ue.position
        ) x ON true
        ORDER BY x.position
        """

    /// The current claims of `tokens`' event polls that a node other than `node` holds.
    static func pollClaims(of tokens: [Int64], heldElsewhereThan node: String, _ connection: PostgresConnection) throws
        -> [PollClaim]
    {
        try connection.rows(
            "SELECT token_id, generation FROM poll_claims WHERE token_id = ANY($1::int8[]) AND node <> $2",
            PostgresValue.integerArray(tokens), node,
            as: { PollClaim(tokenID: try $0.int(0), generation: try $0.int(1)) })
    }
}
