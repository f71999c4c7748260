/// A storage failure the server maps to an API error or logs.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// A unique name or key already exists.
    case conflict(String)
    /// The thing does not exist.
    case notFound(String)
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
        }
    }
}
