import IMProtocol

/// What a member reads of a conversation's events besides the span of their membership:
/// the rules every feed read follows, on both stores, and so do the recipients an event
/// wakes (a poll woken for an event its feed read then hides would wake again at once).
///
/// A member reads a message's text only as it was while they were in the conversation:
///
/// - **Someone in a room** reads only what was said after they came in (history does the
///   same with `joined_seq`): not an edit or a deletion of an earlier message either.
///   Group members read a group's history from before their joining, so this is for rooms.
/// - **Someone who left** reads the events up to their leaving, each message as it read
///   then: an edit made after it is not shown to them (`message_versions` keeps the text
///   it replaced, while someone who left before it may read it). A deletion is shown to
///   everyone: the text is gone for all (its versions go with it).
enum FeedVisibility {
    /// The SQL condition under which a span of membership that began when the
    /// conversation's newest message was number `joinedSeq` reads an event whose message
    /// has number `messageSeq` (NULL for an event without one), in a conversation of
    /// `kind`: each argument an SQL expression. `messageSeq` is evaluated only in a room
    /// (see `messageSeqSQL`).
    static func sql(kind: String, messageSeq: String, joinedSeq: String) -> String {
        "(\(kind) <> 'room' OR \(messageSeq) IS NULL OR \(messageSeq) > \(joinedSeq))"
    }

    /// The number of the message `messageID` (an SQL expression) names, by its key: a
    /// look-up per event, made only for a room's events (`sql` tries `kind` first), never
    /// a join the planner could turn into a scan of every message.
    static func messageSeqSQL(_ messageID: String) -> String {
        "(SELECT fv.seq FROM messages fv WHERE fv.id = \(messageID))"
    }

    /// `sql(kind:messageSeq:joinedSeq:)` for values at hand.
    static func reads(kind: ConversationKind, messageSeq: Int64?, joinedSeq: Int64) -> Bool {
        kind != .room || messageSeq.map { $0 > joinedSeq } ?? true
    }

    /// Reads the text (and edit time) a message showed to someone whose membership ended
    /// at `throughSQL`: the first version replaced after it, if any (else the current row
    /// holds it). Columns: text, edited_at; `message` and `through` are SQL expressions.
    static func versionSQL(message: String, through: String) -> String {
        """
        SELECT v.text, v.edited_at FROM message_versions v
        WHERE v.message_id = \(message) AND v.until_position > \(through) ORDER BY v.until_position LIMIT 1
        """
    }

    /// Whether an edit must keep the text it replaces: someone who left the conversation
    /// may still read its events (until retention drops them). An SQL condition on the
    /// conversation id `conversation`.
    static func keepsVersionsSQL(conversation: String) -> String {
        "EXISTS (SELECT 1 FROM former_members f WHERE f.conversation_id = \(conversation))"
    }

    /// The SQL condition under which `user` takes events of acts by `actor` addressed to
    /// them alone (a contact added, a profile changed, an invitation): not while they
    /// block `actor`. Blocked means no events from them at all; a conversation both are in
    /// is the conversation's, and its events reach every member.
    static func takesEventsSQL(user: String, from actor: String) -> String {
        "NOT EXISTS (SELECT 1 FROM blocks bl WHERE bl.user_id = \(user) AND bl.blocked_id = \(actor) AND bl.user_id <> bl.blocked_id)"
    }

    /// Drops the versions nobody can read any more: no one left the message's
    /// conversation before the edit that replaced it (and still reads its events).
    static let pruneVersionsSQL = """
        DELETE FROM message_versions WHERE NOT EXISTS (
            SELECT 1 FROM messages m JOIN former_members f ON f.conversation_id = m.conversation_id
            WHERE m.id = message_versions.message_id AND f.left_position < message_versions.until_position)
        """
}
