import IMProtocol

/// A storage failure the server maps to an API error or logs.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// A unique name or key already exists.
    case conflict(String)
    /// The thing does not exist.
    case notFound(String)
    /// The user is not a member of (or not present in) the conversation.
    case notMember
    /// The user is muted in the conversation until then (nil: until unmuted).
    case muted(until: Timestamp?)
    /// The user joined a group that keeps newcomers from posting until an admin lets them.
    case restricted
    /// The user is banned from the group until then (nil: until unbanned).
    case banned(until: Timestamp?)
    /// The group is in slow mode and the member posted less than its interval ago.
    case slowMode(retryAfter: Int)
    /// The other side of a one-to-one conversation blocked the sender.
    case blocked
    /// The caller may not do this here; `reason` is the API's reason (`not_sender`,
    /// `not_group_admin`, …) and `message` says why to a person.
    case refused(reason: String, message: String)
    /// The thing is not in a state that allows this (a deleted message edited, a system
    /// notice deleted).
    case invalidState(String)
    /// A message refers to something that is not there (e.g. `reply_to` in another
    /// conversation).
    case invalidReference(String)
    /// The feed no longer holds events after this position (retention dropped them).
    case cursorTooOld
    /// Storing this would pass the account's budget (of media bytes).
    case overBudget(used: Int, limit: Int)
    /// The account stored its `MessageQuota` of message bytes today; the next UTC day
    /// begins in `retryAfter` seconds.
    case quotaExceeded(limit: Int, retryAfter: Int)
    /// A bot's journal holds its most records (`BotJournalStore`); a snapshot empties it.
    case tooManyRecords(limit: Int)
    /// A bot's journal write named a lease holding that is over (another runner took the bot).
    case leaseLost
    /// The store was closed.
    case closed
    /// The database file belongs to a newer schema, or cannot be migrated.
    case incompatibleSchema(String)
    case internalFailure(String)

    public var description: String {
        switch self {
        case .conflict(let message), .notFound(let message), .incompatibleSchema(let message),
            .internalFailure(let message):
            message
        case .closed: "the store is closed"
        case .leaseLost: "the bot's lease was taken over or released"
        case .notMember: "not a member of the conversation"
        case .muted(let until): until.map { "muted until \($0)" } ?? "muted until unmuted"
        case .restricted: "a newcomer not yet allowed to post"
        case .banned(let until): until.map { "banned until \($0)" } ?? "banned until unbanned"
        case .slowMode(let seconds): "slow mode: wait \(seconds) s"
        case .blocked: "blocked by the other side"
        case .refused(_, let message), .invalidState(let message): message
        case .invalidReference(let message): message
        case .cursorTooOld: "the feed no longer holds events after this cursor"
        case .overBudget(let used, let limit): "over budget: \(used) of \(limit) bytes"
        case .quotaExceeded(let limit, let seconds): "the day's \(limit) bytes of messages are stored: wait \(seconds) s"
        case .tooManyRecords(let limit): "the journal holds its \(limit) records"
        }
    }
}
