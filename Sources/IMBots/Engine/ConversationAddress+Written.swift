import IMProtocol
import MatrixClient

extension ConversationAddress {
    /// A conversation as a bot file, a rendered `to:` or `explain --in` writes it.
    ///
    /// Switchboard's forms: `user:NAME` (or `direct:NAME`), `group:NAME`, `room:NAME` or a
    /// conversation id, names lowercased (the server treats them case-insensitively).
    /// Matrix's forms, kept as written (Matrix ids are case-sensitive): a room as
    /// `!id:server` or `#alias:server` is the group of that name (`.group("#ops:example.org")`),
    /// a user as `@name:server` is the direct chat with them. Nil for anything else.
    public init?(written text: String) {
        let text = text.trimmedWhitespace
        if let room = MatrixRoomAddress(text) {
            self = .group(room.description)
        } else if let user = MatrixUserID(text) {
            self = .user(user.rawValue)
        } else if let address = ConversationAddress(text.lowercased()) {
            self = address
        } else {
            return nil
        }
    }

    /// The Matrix room this address writes (`!id:server`, `#alias:server`), if it is one.
    public var matrixRoom: MatrixRoomAddress? {
        guard case .group(let name) = self else { return nil }
        return MatrixRoomAddress(name)
    }

    /// Whether this address writes a Matrix room or user rather than a Switchboard name.
    public var isMatrixForm: Bool {
        switch self {
        case .group: matrixRoom != nil
        case .user(let name): MatrixUserID(name) != nil
        case .id, .room: false
        }
    }
}
