import Foundation
import IMProtocol

/// PostgreSQL's own row helpers (the column lists and row mappers of both engines are
/// `Body/Rows.swift`).
extension PostgresStore {
    /// The SQL of the name `viewer` ($`viewer`) addresses a conversation (`c`) by: the
    /// other side's username for a direct one (`<low id>:<high id>`), read now, since
    /// another node may have renamed it (a deleted account).
    static func otherNameSQL(viewer: Int) -> String {
        """
        CASE WHEN c.kind = 'direct' THEN (SELECT o.username FROM users o WHERE o.id = CASE
            WHEN split_part(c.name, ':', 1)::int8 = $\(viewer) THEN split_part(c.name, ':', 2)::int8
            ELSE split_part(c.name, ':', 1)::int8 END) END
        """
    }

    /// How a viewer addresses a conversation of `kind` and `name`, given the other side's
    /// name read with `otherNameSQL`.
    static func address(kind: ConversationKind, name: String, other: String?) -> ConversationAddress {
        kind == .direct ? .user(other ?? "unknown") : ConversationAddress(kind: kind, name: name)
    }

    /// The username of an account, or nil.
    static func username(_ id: UserID, _ connection: PostgresConnection) throws -> String? {
        try connection.first("SELECT username FROM users WHERE id = $1", id.rawValue, as: { try $0.text(0) })
    }
}
