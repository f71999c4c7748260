import IMProtocol

/// A storage failure the server maps to an API error or logs.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// A unique name or key already exists.
    case conflict(String)
    /// The thing does not exist.
    case notFound(String)
    /// The user is not a member of (or not present in) the conversation.
    case notMember
    /// The user is muted in the conversation until then.
    case muted(until: Timestamp)
    /// A message refers to something that is not there (e.g. `reply_to` in another
    /// conversation).
    case invalidReference(String)
    /// The feed no longer holds events after this position (retention dropped them).
    case cursorTooOld
    /// Storing this would pass the account's budget (of media bytes).
    case overBudget(used: Int, limit: Int)
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
        case .notMember: "not a member of the conversation"
        case .muted(let until): "muted until \(until)"
        case .invalidReference(let message): message
        case .cursorTooOld: "the feed no longer holds events after this cursor"
        case .overBudget(let used, let limit): "over budget: \(used) of \(limit) bytes"
        }
    }
}
