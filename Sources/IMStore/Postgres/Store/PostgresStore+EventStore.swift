import Foundation
import IMProtocol

/// Reading and pruning the feeds (the layout: `SQLiteStore+Feed.swift`).
extension PostgresStore: EventStore {
    /// One statement, so one snapshot: the floor, the user's own events, and for every
    /// span of membership (`members`, and `former_members` whose leaving is after the
    /// cursor) the oldest `limit` of the conversation's events inside it that the span may
    /// read (`FeedVisibility`: in a room, none about a message from before it began),
    /// through the index `(conversation_id, position)` with `LATERAL`; merged by position
    /// and cut at `limit`, then joined with each message's current row, or for a span that
    /// ended, with the text it showed then. A backlog in many conversations costs about
    /// `limit` rows per span read from the index and `limit` rows in all, in one round trip.
    private static let feedSQL = """
        WITH spans AS (
            SELECT mb.conversation_id AS c, mb.joined_position AS f, 9223372036854775807::int8 AS t, mb.joined_seq AS q
            FROM members mb WHERE mb.user_id = $1
            UNION ALL
            SELECT fm.conversation_id, fm.joined_position, fm.left_position, fm.joined_seq FROM former_members fm
            WHERE fm.user_id = $1 AND fm.left_position > $2
        ), chosen AS (
            SELECT p.position, s.t FROM spans s JOIN conversations sc ON sc.id = s.c CROSS JOIN LATERAL (
                SELECT e.position FROM conversation_events e
                WHERE e.conversation_id = s.c AND e.position > greatest($2, s.f - 1) AND e.position <= s.t
                    AND \(FeedVisibility.sql(
                        kind: "sc.kind", messageSeq: FeedVisibility.messageSeqSQL("e.message_id"), joinedSeq: "s.q"))
                ORDER BY e.position LIMIT $3) p
            ORDER BY p.position LIMIT $3
        ), feed AS (
            SELECT e.position, e.type, e.created_at, e.payload, e.conversation_id, e.message_id, chosen.t
            FROM chosen JOIN conversation_events e ON e.position = chosen.position
            UNION ALL
            (SELECT ue.position, ue.type, ue.created_at, ue.payload, ue.conversation_id, ue.message_id, NULL::int8
             FROM user_events ue WHERE ue.user_id = $1 AND ue.position > $2 ORDER BY ue.position LIMIT $3)
        )
        SELECT (SELECT feed_floor FROM users WHERE id = $1), f.position, f.type, f.created_at, f.payload,
            f.conversation_id, c.kind, c.name, \(otherNameSQL(viewer: 1)), \(messageColumns),
            v.text IS NOT NULL, v.text, v.edited_at
        FROM (SELECT 1) AS one
        LEFT JOIN (SELECT * FROM feed ORDER BY position LIMIT $3) AS f ON true
        LEFT JOIN conversations c ON c.id = f.conversation_id
        LEFT JOIN messages m ON m.id = f.message_id
        LEFT JOIN users su ON su.id = m.sender_id
        LEFT JOIN LATERAL (\(FeedVisibility.versionSQL(message: "f.message_id", through: "f.t"))) v
            ON f.t < 9223372036854775807 AND m.edited_at IS NOT NULL
        ORDER BY f.position
        """

    public func events(for userID: UserID, after position: Int64, limit: Int) async throws -> [Event] {
        let rows = try await read { connection in
            try connection.rows(Self.feedSQL, userID.rawValue, position, max(0, limit)) { row -> (Int64, Event?) in
                let floor = try row.optionalInt(0) ?? 0
                guard !row.isNull(1) else { return (floor, nil) }
                var event = Event(
                    position: try row.int(1), type: EventType(rawValue: try row.text(2)),
                    at: Timestamp(milliseconds: try row.int(3)))
                if let conversationID = try row.optionalInt(5), let kindText = try row.optionalText(6) {
                    let kind = ConversationKind(rawValue: kindText) ?? .group
                    event.conversation = ConversationRef(
                        id: ConversationID(rawValue: conversationID), kind: kind,
                        address: Self.address(kind: kind, name: try row.text(7), other: try row.optionalText(8)))
                }
                event.message = try Self.message(row, at: 9)
                // Someone who left reads an edited message as it was when they left.
                if try row.bool(21) {
                    event.message?.text = try row.text(22)
                    event.message?.editedAt = try row.optionalInt(23).map { Timestamp(milliseconds: $0) }
                }
                Self.applyPayload(try row.optionalText(4), to: &event)
                return (floor, event)
            }
        }
        if position < (rows.first?.0 ?? 0) { throw StoreError.cursorTooOld }
        return rows.compactMap(\.1)
    }

    /// Drops events created before `before` and raises the feed floors, as the SQLite
    /// store does (see there), in one transaction. One node prunes at a time: the others
    /// find the advisory lock taken and skip their turn.
    public func pruneEvents(before: Timestamp) async throws -> Int {
        try await pool.transaction { connection in
            guard try connection.first("SELECT pg_try_advisory_xact_lock($1)", Self.pruneLock, as: { try $0.bool(0) }) == true
            else { return 0 }
            let cut = try connection.first(
                """
                SELECT coalesce((SELECT position - 1 FROM conversation_events WHERE created_at >= $1 ORDER BY position LIMIT 1),
                    (SELECT max(position) FROM conversation_events), 0)
                """,
                before.milliseconds, as: { try $0.int(0) }) ?? 0
            try Self.raiseFloors(cut: cut, before: before, connection)
            let conversationRows = try connection.execute("DELETE FROM conversation_events WHERE position <= $1", cut)
            try connection.execute("DELETE FROM former_members WHERE left_position <= $1", cut)
            let userRows = try connection.execute("DELETE FROM user_events WHERE created_at < $1", before.milliseconds)
            try connection.execute(FeedVisibility.pruneVersionsSQL)
            return conversationRows + userRows
        }
    }

    /// The advisory lock of pruning ("SWBPRUNE").
    private static let pruneLock: Int64 = 0x5357_4250_5255_4E45

    private static func raiseFloors(cut: Int64, before: Timestamp, _ connection: PostgresConnection) throws {
        let raise = """
            UPDATE users u SET feed_floor = x.newest FROM (%@) AS x(user_id, newest)
            WHERE u.id = x.user_id AND x.newest IS NOT NULL AND u.feed_floor < x.newest
            """
        // The users' own rows.
        try connection.execute(
            raise.replacingOccurrences(
                of: "%@", with: "SELECT user_id, max(position) FROM user_events WHERE created_at < $1 GROUP BY user_id"),
            before.milliseconds)
        // Each conversation's newest dropped event, for its members from before it.
        try connection.execute(
            raise.replacingOccurrences(
                of: "%@",
                with: """
                    SELECT mb.user_id, max(d.newest) FROM (
                        SELECT conversation_id, max(position) AS newest FROM conversation_events
                        WHERE position <= $1 GROUP BY conversation_id) d
                    JOIN members mb ON mb.conversation_id = d.conversation_id AND mb.joined_position <= d.newest
                    GROUP BY mb.user_id
                    """),
            cut)
        // Those who left: the newest dropped event up to their leaving.
        try connection.execute(
            raise.replacingOccurrences(
                of: "%@",
                with: """
                    SELECT f.user_id, max((SELECT max(e.position) FROM conversation_events e
                        WHERE e.conversation_id = f.conversation_id AND e.position >= f.joined_position
                            AND e.position <= least(f.left_position, $1)))
                    FROM former_members f WHERE f.joined_position <= $1 GROUP BY f.user_id
                    """),
            cut)
    }
}
