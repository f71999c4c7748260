import Foundation
import IMProtocol

/// How the feeds are stored (docs/architecture.md, "Storage: the event feed layout"):
///
/// - an event of a conversation is one row of `conversation_events`, at one position
///   that every member's feed shares, whatever the number of members;
/// - a member reads a conversation's events from `members.joined_position` on, and
///   someone who left reads up to their `former_members.left_position`;
/// - events of one user (read markers, profile changes, contacts) are rows of
///   `user_events`, which also holds the per-user rows written before this layout.
///
/// A user's feed is the union of both, in position order.
extension SQLiteStore {
    // MARK: Writing (writer thread only)

    /// One member's standing, or nil when `user` is not a member.
    func memberState(_ conversationID: ConversationID, _ user: UserID, _ connection: SQLiteConnection) throws
        -> MemberState?
    {
        try connection.first(
            "SELECT \(Self.memberStateColumns) FROM members WHERE conversation_id = ? AND user_id = ?",
            conversationID.rawValue, user.rawValue, as: { Self.memberState($0) })
    }

    private static let memberStateColumns = "user_id, role, muted_until, restricted, last_posted_at"

    private static func memberState(_ row: SQLiteRow) -> MemberState {
        MemberState(
            user: UserID(rawValue: row.int(0)), role: MemberRole(rawValue: row.text(1)) ?? .member,
            mutedUntil: row.optionalInt(2), restricted: row.bool(3), lastPostedAt: row.optionalInt(4))
    }

    /// Stores one event of a conversation at `position` (the next one when nil) and
    /// arranges for the feeds' observers to hear of it after commit. It reaches
    /// `recipients` now (in user order; the conversation's members when nil) and, through
    /// membership, every later read of their feeds.
    ///
    /// With `message` (a chat message and its conversation's kind and name) the event
    /// travels with the update, so parked polls can be answered without reading their
    /// feeds; `addresses` are how the recipients address the conversation, when the
    /// caller knows them (`FeedMessage.addresses`). It is reported only if the job commits.
    func appendConversationEvent(
        _ context: SQLiteDatabase.WriteContext, type: EventType, conversationID: ConversationID,
        messageID: MessageID?, payload: EventPayload? = nil, at: Timestamp, position: Int64? = nil,
        recipients: [UserID]? = nil, message: (Message, kind: ConversationKind, name: String)? = nil,
        addresses: [ConversationAddress]? = nil
    ) throws {
        let connection = context.connection
        let position = position ?? positions.issue()
        try connection.execute(
            "INSERT INTO conversation_events (position, conversation_id, type, message_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            position, conversationID.rawValue, type.rawValue, messageID?.rawValue, try payload.map(Self.text),
            at.milliseconds)
        let recipients = try recipients ?? rosters.roster(conversationID, connection).users
        guard !recipients.isEmpty else { return }
        var feedMessage: FeedMessage?
        if let (message, kind, name) = message {
            let addresses =
                try addresses
                ?? (kind == .direct
                    ? recipients.map { try address(of: (kind, name), viewer: $0, connection) }
                    : [ConversationAddress(kind: kind, name: name)])
            feedMessage = FeedMessage(message: message, kind: kind, addresses: addresses)
        }
        // A conversation's recipients are its members, in user order (`RosterCache`).
        let entry = FeedEntry(position: position, recipients: recipients, message: feedMessage, ascending: true)
        context.afterCommit { [notifier] in notifier.add(entry) }
    }

    /// Stores one event in the feeds of `users` only, at one position.
    func appendUserEvent(
        _ context: SQLiteDatabase.WriteContext, type: EventType, users: [UserID], conversationID: ConversationID? = nil,
        payload: EventPayload, at: Timestamp
    ) throws {
        guard !users.isEmpty else { return }
        let position = positions.issue()
        let payloadText = try Self.text(payload)
        for user in users {
            try context.connection.execute(
                "INSERT INTO user_events (user_id, position, type, conversation_id, message_id, payload, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?)",
                user.rawValue, position, type.rawValue, conversationID?.rawValue, payloadText, at.milliseconds)
        }
        let entry = FeedEntry(position: position, recipients: users.sorted { $0.rawValue < $1.rawValue })
        context.afterCommit { [notifier] in notifier.add(entry) }
    }

    /// Ends a membership at `position` (the event announcing it, which the leaver still
    /// reads); false when `user` was not a member.
    func deleteMember(_ connection: SQLiteConnection, _ conversationID: ConversationID, _ user: UserID, position: Int64)
        throws -> Bool
    {
        guard let (joined, joinedSeq) = try connection.first(
            "SELECT joined_position, joined_seq FROM members WHERE conversation_id = ? AND user_id = ?",
            conversationID.rawValue, user.rawValue, as: { ($0.int(0), $0.int(1)) })
        else { return false }
        try connection.execute(
            "DELETE FROM members WHERE conversation_id = ? AND user_id = ?", conversationID.rawValue, user.rawValue)
        if joined <= position {
            try connection.execute(
                """
                INSERT INTO former_members (user_id, left_position, conversation_id, joined_position, joined_seq)
                VALUES (?, ?, ?, ?, ?)
                """,
                user.rawValue, position, conversationID.rawValue, joined, joinedSeq)
        }
        return true
    }

    private static func text(_ payload: EventPayload) throws -> String {
        String(decoding: try WireJSON.encoder().encode(payload), as: UTF8.self)
    }
}

/// The fields of a non-message event, stored as JSON in its row.
struct EventPayload: Codable, Sendable {
    var user: User?
    var by: String?
    var info: ConversationInfo?
    var seq: Int64?
    var reason: String?
    var until: Timestamp?
    var role: MemberRole?
    var via: JoinPolicy?
    var notice: Notice?
}
