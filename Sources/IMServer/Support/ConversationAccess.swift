import IMProtocol
import IMStore

/// Turns an address from a path into a conversation the caller may use, or the error
/// that says why not. Every conversation endpoint goes through here, so the rule of who
/// may read or write where lives in one place.
struct ConversationAccess {
    /// A conversation and the caller's membership in it.
    struct Resolved {
        var record: ConversationRecord
        var membership: MembershipRecord
    }

    let store: any IMStorage
    let session: Session

    /// Parses the path segment naming a conversation.
    static func address(_ text: String) throws -> ConversationAddress {
        guard let address = ConversationAddress(text) else {
            throw APIError.invalid(
                "conversation", "'\(text)' is not a conversation: use an id, user:NAME, group:NAME or room:NAME")
        }
        return address
    }

    /// The conversation at `address` if the caller belongs to it. With `create`, the
    /// direct conversation with another user is made on first use; without, a direct
    /// conversation that has never been used is nil.
    func resolve(_ address: ConversationAddress, create: Bool) async throws -> Resolved? {
        let record: ConversationRecord
        switch address {
        case .id(let id):
            // An id the caller cannot see is reported as absent, so ids reveal nothing.
            guard let found = try await store.conversation(id: id),
                let membership = try await store.membership(found.id, session.userID)
            else { throw APIError(.notFound, "no conversation \(id)") }
            return Resolved(record: found, membership: membership)
        case .user(let name):
            let username = name.lowercased()
            guard let other = try await store.user(named: username) else {
                throw APIError(.notFound, "no user '\(username)'")
            }
            if create {
                record = try await store.directConversation(session.userID, other.id)
            } else {
                let key = ConversationRecord.directName(session.userID, other.id)
                guard let found = try await store.conversation(kind: .direct, name: key) else { return nil }
                record = found
            }
        case .group(let name), .room(let name):
            let kind: ConversationKind = if case .group = address { .group } else { .room }
            let lowered = name.lowercased()
            guard let found = try await store.conversation(kind: kind, name: lowered) else {
                throw APIError(.notFound, "no \(kind.rawValue) '\(lowered)'")
            }
            record = found
        }
        guard let membership = try await store.membership(record.id, session.userID) else {
            throw Self.notMember(record)
        }
        return Resolved(record: record, membership: membership)
    }

    /// 403 for a group or room the caller is not in.
    static func notMember(_ record: ConversationRecord) -> APIError {
        switch record.kind {
        case .group:
            APIError(.forbidden, "you are not a member of group '\(record.name)': join it first", reason: "not_member")
        case .room:
            APIError(.forbidden, "you are not in room '\(record.name)': enter it first", reason: "not_present")
        case .direct:
            APIError(.notFound, "no conversation \(record.id)")
        }
    }
}
