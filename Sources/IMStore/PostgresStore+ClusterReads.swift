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
            (clock: try row.int(0), through: try row.int(1), position: try row.optionalInt(2),
             user: try row.optionalInt(3))
        }
        var entries: [FeedEntry] = []
        var recipients: [UserID] = []
        var position: Int64?
        func flush() {
            if let position, !recipients.isEmpty {
                entries.append(FeedEntry(position: position, recipients: recipients, ascending: true))
            }
            recipients = []
        }
        for row in rows {
            guard let at = row.position, let user = row.user.map({ UserID(rawValue: $0) }) else { continue }
            if at != position {
                flush()
                position = at
            }
            if recipients.last != user { recipients.append(user) }
        }
        flush()
        return CommittedFeeds(
            clock: rows.first?.clock ?? after, through: max(after, rows.first?.through ?? after), entries: entries)
    }

    private static let committedFeedsSQL = """
        WITH clock AS (SELECT position AS c FROM feed_clock), bound AS (SELECT least($1 + $2, c) AS b FROM clock)
        SELECT (SELECT c FROM clock), (SELECT b FROM bound), x.position, x.user_id
        FROM (SELECT 1) AS one LEFT JOIN (
            SELECT e.position, r.user_id FROM conversation_events e
            JOIN conversations cv ON cv.id = e.conversation_id
            LEFT JOIN messages em ON em.id = e.message_id AND cv.kind = 'room'
            CROSS JOIN LATERAL (
                SELECT m.user_id FROM members m
                WHERE m.conversation_id = e.conversation_id AND m.joined_position <= e.position
                    AND \(FeedVisibility.sql(kind: "cv.kind", messageSeq: "em.seq", joinedSeq: "m.joined_seq"))
                UNION ALL
                SELECT f.user_id FROM former_members f
                WHERE f.conversation_id = e.conversation_id AND f.left_position >= e.position
                    AND f.joined_position <= e.position
                    AND \(FeedVisibility.sql(kind: "cv.kind", messageSeq: "em.seq", joinedSeq: "f.joined_seq"))
            ) r
            WHERE e.position > $1 AND e.position <= (SELECT b FROM bound)
            UNION ALL
            SELECT ue.position, ue.user_id FROM user_events ue
            WHERE ue.position > $1 AND ue.position <= (SELECT b FROM bound)
        ) x ON true
        ORDER BY x.position, x.user_id
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
