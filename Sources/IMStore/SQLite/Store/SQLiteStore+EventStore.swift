import Foundation
import IMProtocol

/// Reading and pruning the feeds (the layout: `SQLiteStore+Feed.swift`).
extension SQLiteStore: EventStore {
    /// One stretch of a user's membership: the conversation's events in
    /// `from...through` are theirs.
    private struct Span {
        var conversationID: Int64
        var from: Int64
        var through: Int64
        var kind: ConversationKind
        var name: String
        /// The conversation's newest message when the span began (`FeedVisibility`).
        var joinedSeq: Int64
    }

    /// The user's own events merged with the events of every conversation they belong
    /// (or belonged) to while they were a member, read in one snapshot.
    ///
    /// Two passes, so that a backlog in many conversations costs about `limit` rows:
    /// first the positions alone (the index `(conversation_id, position)` holds them),
    /// merged from all memberships a few at a time (`SpanPositions`); then the rows of
    /// the `limit` oldest. (Reading up to `limit` full rows per conversation instead made a
    /// user in 64 busy conversations read 6,400 rows to answer with 100.)
    public func events(for userID: UserID, after position: Int64, limit: Int) async throws -> [Event] {
        try await database.read { [self] connection in
            try connection.snapshot {
                let floor = try connection.scalar("SELECT feed_floor FROM users WHERE id = ?", userID.rawValue) ?? 0
                if position < floor { throw StoreError.cursorTooOld }
                guard limit > 0 else { return [] }
                let own = try userEvents(userID, after: position, limit: limit, connection)
                let spans = try spans(of: userID, after: position, connection)
                var sources = spans.map { SpanPositions($0, after: position, batch: max(4, 2 * limit / max(1, spans.count))) }
                // The oldest `limit` positions of the feed, each with its span (nil: `own`).
                var chosen: [(position: Int64, span: Int?)] = []
                var nextOwn = 0
                while chosen.count < limit {
                    var best: (position: Int64, span: Int?)? = nextOwn < own.count ? (own[nextOwn].position, nil) : nil
                    for index in sources.indices {
                        guard let head = try sources[index].head(connection) else { continue }
                        if best.map({ head < $0.position }) ?? true { best = (head, index) }
                    }
                    guard let taken = best else { break }
                    chosen.append(taken)
                    if let index = taken.span { sources[index].advance() } else { nextOwn += 1 }
                }
                var events = Array(own.prefix(nextOwn))
                var conversations: [Int64: ConversationRef] = [:]
                for case let (_, index?) in chosen where conversations[spans[index].conversationID] == nil {
                    let span = spans[index]
                    conversations[span.conversationID] = ConversationRef(
                        id: ConversationID(rawValue: span.conversationID), kind: span.kind,
                        address: try address(of: (span.kind, span.name), viewer: userID, connection))
                }
                let positions = chosen.compactMap { $0.span == nil ? nil : $0.position }
                for start in stride(from: 0, to: positions.count, by: Self.rowsPerRead) {
                    events += try conversationEvents(
                        Array(positions[start..<min(positions.count, start + Self.rowsPerRead)]), in: conversations,
                        connection)
                }
                // Someone who left reads each edited message as it was when they left.
                var leftAt: [Int64: Int64] = [:]
                for case let (position, index?) in chosen where spans[index].through != Int64.max {
                    leftAt[position] = spans[index].through
                }
                if !leftAt.isEmpty {
                    for index in events.indices {
                        guard let through = leftAt[events[index].position], let message = events[index].message,
                            message.editedAt != nil
                        else { continue }
                        events[index].message = try Self.message(message, asOf: through, connection)
                    }
                }
                events.sort { $0.position < $1.position }
                return events
            }
        }
    }

    /// How many events one statement reads by position: its `IN` list has this many
    /// slots (unused ones are NULL), so one prepared statement serves every read.
    private static let rowsPerRead = 64

    private static let eventsByPosition = """
        SELECT e.position, e.type, e.created_at, e.payload, e.conversation_id, \(messageColumns)
        FROM conversation_events e
        LEFT JOIN messages m ON m.id = e.message_id
        LEFT JOIN users su ON su.id = m.sender_id
        WHERE e.position IN (\(Array(repeating: "?", count: rowsPerRead).joined(separator: ", ")))
        """

    /// `message` as someone whose membership ended at `through` read it (`FeedVisibility`).
    private static func message(_ message: Message, asOf through: Int64, _ connection: SQLiteConnection) throws
        -> Message
    {
        guard let (text, editedAt) = try connection.first(
            FeedVisibility.versionSQL(message: "?", through: "?"), message.id.rawValue, through,
            as: { ($0.text(0), $0.optionalInt(1)) })
        else { return message }
        var earlier = message
        earlier.text = text
        earlier.editedAt = editedAt.map { Timestamp(milliseconds: $0) }
        return earlier
    }

    /// The positions of one membership's events after a cursor, read in growing batches
    /// as the merge asks for them: the conversation's messages' own events through the
    /// messages (`MessagePositions`) and its other events through the events' index by
    /// conversation, which holds only those (schema version 10), merged.
    private struct SpanPositions {
        let span: Span
        var messages: MessagePositions
        var others: OtherPositions

        init(_ span: Span, after position: Int64, batch: Int) {
            self.span = span
            let after = max(position, span.from - 1)
            messages = MessagePositions(after: after, through: span.through, batch: batch)
            others = OtherPositions(after: after, through: span.through, batch: batch)
        }

        /// The oldest position not taken yet, reading the next batch when needed.
        mutating func head(_ connection: SQLiteConnection) throws -> Int64? {
            let message = try messages.head(span, connection)
            let other = try others.head(span, connection)
            switch (message, other) {
            case let (message?, other?): return min(message, other)
            case let (message, other): return message ?? other
            }
        }

        mutating func advance() {
            if let message = messages.batches.current, message < others.batches.current ?? Int64.max {
                messages.batches.next += 1
            } else {
                others.batches.next += 1
            }
        }
    }

    /// Ascending positions read a batch at a time, each batch twice the size of the one
    /// before, as the merge draws on them.
    private struct PositionBatches {
        var size: Int
        var buffered: [Int64] = []
        var next = 0
        var exhausted: Bool

        /// The oldest position read and not taken yet.
        var current: Int64? { next < buffered.count ? buffered[next] : nil }
        /// Whether every position read is taken and more may follow.
        var needsRead: Bool { next >= buffered.count && !exhausted }

        /// Holds the next batch (`last`: nothing follows it); returns its first position.
        mutating func refill(_ positions: [Int64], last: Bool) -> Int64? {
            (buffered, next, exhausted) = (positions, 0, last)
            size *= 2
            return buffered.first
        }
    }

    /// The positions of a conversation's `.message` events in `after...through`, from the
    /// messages that carry them: found by seq (`firstMessageRange`), then read in order of
    /// seq, along which the positions ascend.
    private struct MessagePositions {
        let after: Int64
        let through: Int64
        var batches: PositionBatches
        /// The next seq to read from; nil until the first read finds it.
        var fromSeq: Int64?

        init(after: Int64, through: Int64, batch: Int) {
            self.after = after
            self.through = through
            batches = PositionBatches(size: batch, exhausted: after >= through)
        }

        mutating func head(_ span: Span, _ connection: SQLiteConnection) throws -> Int64? {
            guard batches.needsRead else { return batches.current }
            var opening: [(seq: Int64, position: Int64)]?
            if fromSeq == nil {
                guard let range = try SQLiteStore.firstMessageRange(
                    in: span.conversationID, after: after, notBefore: span.kind == .room ? span.joinedSeq + 1 : 1,
                    opening: batches.size, connection)
                else { return batches.refill([], last: true) }
                (fromSeq, opening) = (range.start, range.opening)
            }
            // When every message of the conversation from `notBefore` is past the cursor, the
            // search's first statement read this batch already; otherwise the read goes on
            // from the search's window, passing over the messages in it not past the cursor.
            let rows = try opening ?? connection.rows(
                """
                SELECT seq, position FROM messages
                WHERE conversation_id = ? AND seq >= ? AND position IS NOT NULL AND position > ? ORDER BY seq LIMIT ?
                """,
                span.conversationID, fromSeq ?? 1, after, batches.size, as: { (seq: $0.int(0), position: $0.int(1)) })
            let positions = rows.map(\.position).filter { $0 <= through }
            fromSeq = (rows.last?.seq ?? 0) + 1
            return batches.refill(positions, last: rows.count < batches.size || positions.count < rows.count)
        }
    }

    /// The positions of a conversation's other events in `after...through`, through the
    /// events' index by conversation (which leaves `.message` events out).
    private struct OtherPositions {
        var after: Int64
        let through: Int64
        var batches: PositionBatches

        init(after: Int64, through: Int64, batch: Int) {
            self.after = after
            self.through = through
            batches = PositionBatches(size: batch, exhausted: after >= through)
        }

        mutating func head(_ span: Span, _ connection: SQLiteConnection) throws -> Int64? {
            guard batches.needsRead else { return batches.current }
            let positions: [Int64]
            if span.kind == .room {
                positions = try connection.rows(Self.roomPositions, span.conversationID, after, through, span.joinedSeq,
                                                batches.size, as: { $0.int(0) })
            } else {
                positions = try connection.rows(
                    """
                    SELECT position FROM conversation_events
                    WHERE conversation_id = ? AND position > ? AND position <= ? AND type <> 'message'
                    ORDER BY position LIMIT ?
                    """,
                    span.conversationID, after, through, batches.size, as: { $0.int(0) })
            }
            after = positions.last ?? after
            return batches.refill(positions, last: positions.count < batches.size)
        }

        /// A room's events someone present reads: none about a message from before they came.
        private static let roomPositions = """
            SELECT e.position FROM conversation_events e
            WHERE e.conversation_id = ? AND e.position > ? AND e.position <= ? AND e.type <> 'message'
                AND \(FeedVisibility.sql(
                    kind: "'room'", messageSeq: FeedVisibility.messageSeqSQL("e.message_id"), joinedSeq: "?"))
            ORDER BY e.position LIMIT ?
            """
    }

    /// Where, at `notBefore` or later, the first message of `conversation` whose own event
    /// is past `position` is: at a seq in `start...found` (at most `searchWindow`
    /// messages apart); nil when there is none. Positions ascend with seq within a
    /// conversation, so this is a search over the messages' `(conversation_id, seq)`
    /// index: the newest and the oldest message first, in one statement (a cursor past
    /// the one or before the other needs no more), then look-ups by interpolation, as a
    /// conversation's messages are usually spread evenly over the positions (halving
    /// instead whenever a step did not halve the range). The caller reads the window
    /// with the rows it wants anyway. Messages without a position of their own (NULL) are
    /// skipped.
    ///
    /// The first statement reads the oldest `opening` messages, not only the oldest one:
    /// when the first of them is past `position` (a cursor from before the conversation's
    /// messages, as when catching up), they are the caller's first batch (`opening`).
    static func firstMessageRange(
        in conversation: Int64, after position: Int64, notBefore: Int64, opening: Int = 1,
        _ connection: SQLiteConnection
    ) throws -> (start: Int64, found: Int64, opening: [(seq: Int64, position: Int64)]?)? {
        var newest: (seq: Int64, position: Int64)?
        var oldest: [(seq: Int64, position: Int64)] = []
        try connection.query(Self.messageEnds, [conversation, notBefore, Int64(max(1, opening))]) { row in
            if row.int(0) == 0 { newest = (row.int(1), row.int(2)) } else { oldest.append((row.int(1), row.int(2))) }
        }
        oldest.sort { $0.seq < $1.seq }
        guard let newest, let first = oldest.first, newest.seq >= notBefore, newest.position > position else {
            return nil
        }
        if first.position > position { return (first.seq, first.seq, oldest) }
        // `low`: the seq of a message not past `position`; `high`: a seq whose first
        // message at or after it is past it, that message being `found`.
        var (low, lowPosition) = (first.seq, first.position)
        var (high, highPosition, found) = (newest.seq, newest.position, newest.seq)
        var halve = false
        while high - low > searchWindow {
            let width = high - low
            let middle: Int64
            if halve {
                middle = low + width / 2
            } else {
                let share = Double(position - lowPosition) / Double(max(1, highPosition - lowPosition))
                middle = min(high - 1, max(low + 1, low + 1 + Int64(share * Double(width - 1))))
            }
            guard let probed = try connection.first(
                Self.messageAtOrAfter, conversation, middle, as: { (seq: $0.int(0), position: $0.int(1)) })
            else { break }
            if probed.position > position {
                (high, highPosition, found) = (middle, probed.position, probed.seq)
            } else {
                (low, lowPosition) = (probed.seq, probed.position)
            }
            halve = 2 * (high - low) > width
        }
        return (low + 1, found, nil)
    }

    /// How many messages the search leaves to be read in one statement rather than
    /// looked up one by one.
    private static let searchWindow: Int64 = 4

    /// The newest message of a conversation with a position (tagged 0), and the oldest
    /// `?3` at a seq or later (tagged 1): seq and position of each.
    private static let messageEnds = """
        SELECT 0, * FROM (SELECT seq, position FROM messages
            WHERE conversation_id = ?1 AND position IS NOT NULL ORDER BY seq DESC LIMIT 1)
        UNION ALL
        SELECT 1, * FROM (SELECT seq, position FROM messages
            WHERE conversation_id = ?1 AND seq >= ?2 AND position IS NOT NULL ORDER BY seq LIMIT ?3)
        """

    /// The first message with a position at a seq or later: its seq and position.
    private static let messageAtOrAfter = """
        SELECT seq, position FROM messages
        WHERE conversation_id = ? AND seq >= ? AND position IS NOT NULL ORDER BY seq LIMIT 1
        """

    private func spans(of userID: UserID, after position: Int64, _ connection: SQLiteConnection) throws -> [Span] {
        var spans: [Span] = []
        try connection.query(
            """
            SELECT mb.conversation_id, mb.joined_position, NULL, c.kind, c.name, mb.joined_seq
            FROM members mb JOIN conversations c ON c.id = mb.conversation_id WHERE mb.user_id = ?1
            UNION ALL
            SELECT f.conversation_id, f.joined_position, f.left_position, c.kind, c.name, f.joined_seq
            FROM former_members f JOIN conversations c ON c.id = f.conversation_id
            WHERE f.user_id = ?1 AND f.left_position > ?2
            """,
            [userID.rawValue, position]
        ) { row in
            spans.append(
                Span(
                    conversationID: row.int(0), from: row.int(1), through: row.optionalInt(2) ?? Int64.max,
                    kind: ConversationKind(rawValue: row.text(3)) ?? .group, name: row.text(4), joinedSeq: row.int(5)))
        }
        return spans
    }

    /// The conversation events at `positions` (at most `rowsPerRead`), with the way the
    /// reader addresses each conversation.
    private func conversationEvents(
        _ positions: [Int64], in conversations: [Int64: ConversationRef], _ connection: SQLiteConnection
    ) throws -> [Event] {
        var events: [Event] = []
        let values: [any SQLBindable] =
            positions.map { $0 as any SQLBindable }
            + Array(repeating: Int64?.none as any SQLBindable, count: Self.rowsPerRead - positions.count)
        try connection.query(Self.eventsByPosition, values) { row in
            var event = Event(
                position: row.int(0), type: EventType(rawValue: row.text(1)), at: Timestamp(milliseconds: row.int(2)),
                conversation: conversations[row.int(4)], message: try Self.message(row, at: 5))
            Self.applyPayload(row.optionalText(3), to: &event)
            events.append(event)
        }
        return events
    }

    /// Rows of `user_events`: the user's own events, and the per-user rows written before
    /// the conversation events were stored once.
    private func userEvents(_ userID: UserID, after position: Int64, limit: Int, _ connection: SQLiteConnection)
        throws -> [Event]
    {
        var events: [Event] = []
        var addresses: [Int64: ConversationAddress] = [:]
        try connection.query(
            """
            SELECT e.position, e.type, e.created_at, e.conversation_id, e.payload, c.kind, c.name,
                \(Self.messageColumns)
            FROM user_events e
            LEFT JOIN conversations c ON c.id = e.conversation_id
            LEFT JOIN messages m ON m.id = e.message_id
            LEFT JOIN users su ON su.id = m.sender_id
            WHERE e.user_id = ? AND e.position > ? ORDER BY e.position LIMIT ?
            """,
            [userID.rawValue, position, limit]
        ) { row in
            var event = Event(
                position: row.int(0), type: EventType(rawValue: row.text(1)), at: Timestamp(milliseconds: row.int(2)))
            if let conversationID = row.optionalInt(3), !row.isNull(5) {
                let kind = ConversationKind(rawValue: row.text(5)) ?? .group
                let address: ConversationAddress
                if let known = addresses[conversationID] {
                    address = known
                } else {
                    address = try self.address(of: (kind, row.text(6)), viewer: userID, connection)
                    addresses[conversationID] = address
                }
                event.conversation = ConversationRef(id: ConversationID(rawValue: conversationID), kind: kind, address: address)
            }
            event.message = try Self.message(row, at: 7)
            Self.applyPayload(row.optionalText(4), to: &event)
            events.append(event)
        }
        return events
    }

    /// Drops events created before `before` and raises the feed floor of everyone who
    /// could have read one of them; returns how many stored events went (an event of a
    /// conversation counts once, whatever its number of members).
    ///
    /// Conversation events go as a prefix of positions: everything before the first one
    /// created at or after `before` (so an event is never dropped early, even if the
    /// clock stepped back). A member's floor becomes the newest dropped event of the
    /// conversation they could read; someone who left keeps theirs until retention has
    /// passed their leaving.
    public func pruneEvents(before: Timestamp) async throws -> Int {
        try await database.write { [self] context in
            let connection = context.connection
            let cut: Int64
            if let firstKept = try connection.scalar(
                "SELECT position FROM conversation_events WHERE created_at >= ? ORDER BY position LIMIT 1",
                before.milliseconds)
            {
                cut = firstKept - 1
            } else {
                cut = try connection.scalar("SELECT max(position) FROM conversation_events") ?? 0
            }
            try raiseFloors(cut: cut, before: before, connection)
            let conversationRows = try connection.execute("DELETE FROM conversation_events WHERE position <= ?", cut)
            try connection.execute("DELETE FROM former_members WHERE left_position <= ?", cut)
            let userRows = try connection.execute("DELETE FROM user_events WHERE created_at < ?", before.milliseconds)
            try connection.execute(FeedVisibility.pruneVersionsSQL)
            return conversationRows + userRows
        }
    }

    private func raiseFloors(cut: Int64, before: Timestamp, _ connection: SQLiteConnection) throws {
        let raise = "UPDATE users SET feed_floor = ?1 WHERE id = ?2 AND feed_floor < ?1"
        // The users' own rows.
        try connection.execute(
            """
            UPDATE users SET feed_floor = (SELECT max(position) FROM user_events WHERE user_id = users.id AND created_at < ?1)
            WHERE id IN (SELECT DISTINCT user_id FROM user_events WHERE created_at < ?1)
                AND feed_floor < (SELECT max(position) FROM user_events WHERE user_id = users.id AND created_at < ?1)
            """,
            before.milliseconds)
        // Each conversation's newest dropped event, for its members from before it.
        let dropped = try connection.rows(
            "SELECT conversation_id, max(position) FROM conversation_events WHERE position <= ? GROUP BY conversation_id",
            cut, as: { ($0.int(0), $0.int(1)) })
        for (conversation, newest) in dropped {
            try connection.execute(
                """
                UPDATE users SET feed_floor = ?1 WHERE feed_floor < ?1 AND id IN
                    (SELECT user_id FROM members WHERE conversation_id = ?2 AND joined_position <= ?1)
                """,
                newest, conversation)
        }
        // Those who left: the newest dropped event up to their leaving.
        let former = try connection.rows(
            "SELECT user_id, conversation_id, joined_position, left_position FROM former_members WHERE joined_position <= ?",
            cut, as: { ($0.int(0), $0.int(1), $0.int(2), $0.int(3)) })
        for (user, conversation, joined, left) in former {
            let bound = min(left, cut)
            let other = try connection.scalar(
                """
                SELECT max(position) FROM conversation_events
                WHERE conversation_id = ? AND position >= ? AND position <= ? AND type <> 'message'
                """,
                conversation, joined, bound)
            let message = try newestMessagePosition(in: conversation, atMost: bound, connection).flatMap {
                $0 >= joined ? $0 : nil
            }
            if let newest = [other, message].compactMap({ $0 }).max() {
                try connection.execute(raise, newest, user)
            }
        }
    }

    /// The position of the newest `.message` event of `conversation` at `bound` or before.
    private func newestMessagePosition(in conversation: Int64, atMost bound: Int64, _ connection: SQLiteConnection)
        throws -> Int64?
    {
        let past = try Self.firstMessageRange(in: conversation, after: bound, notBefore: 1, connection)
        return try connection.scalar(
            """
            SELECT position FROM messages
            WHERE conversation_id = ? AND seq <= ? AND position IS NOT NULL AND position <= ? ORDER BY seq DESC LIMIT 1
            """,
            conversation, past?.found ?? Int64.max, bound)
    }
}
