import Foundation
import IMProtocol

/// Writing the feeds (the layout of `SQLiteStore+Feed.swift`). A write job adds its
/// events to the batch without positions; `PostgresStore+Batch.swift` gives them theirs
/// when the batch ends, and sets the positions members joined and left at.
///
/// Who an event reaches is read after the job has locked the conversation's row (every
/// job that changes a membership or writes a conversation's events locks it first), so
/// the recipients of an event are exactly the members at its position, on any node.
extension PostgresStore {
    /// The members of a conversation in user order, with their standing: who a
    /// conversation event reaches, and whether a sender may post.
    static func members(of conversationID: ConversationID, _ connection: PostgresConnection) throws -> [MemberState] {
        try connection.rows(
            "SELECT \(memberStateColumns) FROM members WHERE conversation_id = $1 ORDER BY user_id",
            conversationID.rawValue, as: { try memberState($0) })
    }

    /// One member's standing, or nil when `user` is not a member.
    static func memberState(_ conversationID: ConversationID, _ user: UserID, _ connection: PostgresConnection) throws
        -> MemberState?
    {
        try connection.first(
            "SELECT \(memberStateColumns) FROM members WHERE conversation_id = $1 AND user_id = $2",
            conversationID.rawValue, user.rawValue, as: { try memberState($0) })
    }

    static let memberStateColumns = "user_id, role, muted_until, restricted, last_posted_at"

    /// Maps `memberStateColumns` starting at `start`.
    static func memberState(_ row: PostgresRow, at start: Int = 0) throws -> MemberState {
        MemberState(
            user: UserID(rawValue: try row.int(start)), role: MemberRole(rawValue: try row.text(start + 1)) ?? .member,
            mutedUntil: try row.optionalInt(start + 2), restricted: try row.bool(start + 3),
            lastPostedAt: try row.optionalInt(start + 4))
    }

    /// Adds one event of a conversation to the batch. It reaches `recipients` now (the
    /// conversation's members when nil) and, through membership, every later read of
    /// their feeds. With `message` (and for a direct conversation the names of its two
    /// sides, low id first) the event travels with this node's update, so its parked
    /// polls are answered without reading their feeds. Returns its index.
    @discardableResult
    static func appendConversationEvent(
        _ context: PostgresWriteContext, type: EventType, conversationID: ConversationID, messageID: MessageID?,
        payload: EventPayload? = nil, at: Timestamp, recipients: [UserID]? = nil,
        message: (Message, kind: ConversationKind, name: String, sides: [String])? = nil
    ) throws -> Int {
        let connection = context.connection
        let recipients = try recipients ?? members(of: conversationID, connection).map(\.user)
        var feedMessage: FeedMessage?
        if let (message, kind, name, sides) = message, !recipients.isEmpty {
            var addresses = [ConversationAddress(kind: kind, name: name)]
            if kind == .direct {
                // Each side addresses it by the other's name ("<low>:<high>").
                let ids = name.split(separator: ":").compactMap { Int64($0) }
                addresses = recipients.map { viewer in
                    let other = ids.firstIndex { $0 != viewer.rawValue } ?? 0
                    return .user(sides.indices.contains(other) ? sides[other] : sides.first ?? "unknown")
                }
            }
            feedMessage = FeedMessage(message: message, kind: kind, addresses: addresses)
        }
        return context.add(
            PostgresBatch.Event(
                target: .conversation(conversationID, messageID: messageID), type: type,
                payload: try payload.map(text), createdAt: at.milliseconds, recipients: recipients, message: feedMessage))
    }

    /// Adds one event stored in the feeds of `users` only.
    static func appendUserEvent(
        _ context: PostgresWriteContext, type: EventType, users: [UserID], conversationID: ConversationID? = nil,
        payload: EventPayload, at: Timestamp
    ) throws {
        guard !users.isEmpty else { return }
        context.add(
            PostgresBatch.Event(
                target: .users(conversationID: conversationID), type: type, payload: try text(payload),
                createdAt: at.milliseconds, recipients: Array(Set(users)).sorted { $0.rawValue < $1.rawValue }))
    }

    /// Ends a membership; returns where the member started reading (a position, or an
    /// event of this batch), or nil when `user` was not a member. The caller ends the
    /// reading at its announcing event (`PostgresBatch.Event.leaves`).
    static func deleteMember(_ context: PostgresWriteContext, _ conversationID: ConversationID, _ user: UserID) throws
        -> PostgresBatch.Leave?
    {
        guard let (joined, joinedSeq) = try context.connection.first(
            "DELETE FROM members WHERE conversation_id = $1 AND user_id = $2 RETURNING joined_position, joined_seq",
            conversationID.rawValue, user.rawValue, as: { (try $0.int(0), try $0.int(1)) })
        else { return nil }
        if joined == Int64.max, let event = context.batch.pendingJoin(of: user, in: conversationID) {
            return PostgresBatch.Leave(user: user, joined: .event(event), joinedSeq: joinedSeq)
        }
        return PostgresBatch.Leave(user: user, joined: .position(joined), joinedSeq: joinedSeq)
    }

    static func text(_ payload: EventPayload) throws -> String {
        String(decoding: try WireJSON.encoder().encode(payload), as: UTF8.self)
    }
}
