import IMProtocol
import IMStore

/// Turns an address from a path into a conversation the caller may use, or the error
/// that says why not. Every conversation endpoint goes through here, so the rule of who
/// may read or write where lives in one place: members only; an id the caller cannot see,
/// and an invite-only group they are not in, are reported as absent (404); an open group
/// or a room named by name they are not in as 403.
struct ConversationAccess {
    /// A conversation and the caller's membership in it.
    struct Resolved {
        var entry: ConversationDirectory.Entry
        var membership: MembershipRecord

        /// The sequence number the caller's history starts after: someone in a room reads
        /// only what was said while they are there; a member of anything else reads it all.
        var historyFloor: Int64 { entry.kind == .room ? membership.joinedSeq : 0 }
    }

    let core: ServerServices
    let session: Session

    /// Parses the path segment naming a conversation.
    static func address(_ text: String) throws -> ConversationAddress {
        guard let address = ConversationAddress(text) else {
            throw APIError.invalid(
                "conversation", "'\(text)' is not a conversation: use an id, user:NAME, group:NAME or room:NAME")
        }
        return address
    }

    /// The conversation at `address`, which must exist (or, for a direct one, is made on
    /// first use when `createDirect`); nil only for a direct conversation never used.
    /// Membership is not checked: for writes the store checks it in the same transaction.
    func locate(_ address: ConversationAddress, createDirect: Bool) async throws -> ConversationDirectory.Entry? {
        guard let entry = try await core.directory.entry(for: address, viewer: session.userID, createDirect: createDirect)
        else {
            if case .id(let id) = address { throw APIError(.notFound, "no conversation \(id)") }
            return nil
        }
        return entry
    }

    /// The conversation at `address` if the caller belongs to it; nil for a direct
    /// conversation never used.
    func resolve(_ address: ConversationAddress) async throws -> Resolved? {
        guard let entry = try await locate(address, createDirect: false) else { return nil }
        guard let membership = try await core.store.membership(entry.id, session.userID) else {
            throw try await refusal(entry, address: address)
        }
        return Resolved(entry: entry, membership: membership)
    }

    /// The refusal for a caller who is not in the conversation: by id, 404 whatever it is
    /// (ids reveal nothing); by name, as `notMember(_:)` says, with the group's policy as
    /// it is now, or, to someone banned from a group that is not invite-only, that they
    /// are banned and until when (as joining it says).
    func refusal(_ entry: ConversationDirectory.Entry, address: ConversationAddress) async throws -> APIError {
        if case .id(let id) = address { return APIError(.notFound, "no conversation \(id)") }
        switch entry.kind {
        case .group:
            guard let record = try await core.store.conversation(id: entry.id) else { return Self.noSuchGroup(entry.name) }
            // As joining says it; an invite-only group stays invisible to those it banned.
            if record.joinPolicy != .invite, let ban = try await core.store.activeBan(entry.id, session.userID) {
                let end = ban.until.map { "until \($0)" } ?? "until an admin unbans you"
                return APIError(.forbidden, "you are banned from group '\(record.name)' \(end)", reason: "banned",
                                until: ban.until)
            }
            return Self.notMember(record)
        case .room:
            return APIError(.forbidden, "you are not in room '\(entry.name)': enter it first", reason: "not_present")
        case .direct:
            return APIError(.notFound, "no conversation \(entry.id)")
        }
    }

    /// 403 for a group that is open or takes requests, or a room, the caller is not in; 404
    /// for an invite-only group or a direct conversation of others (their existence is not
    /// revealed).
    static func notMember(_ record: ConversationRecord) -> APIError {
        switch record.kind {
        case .group where record.joinPolicy == .invite:
            noSuchGroup(record.name)
        case .group:
            APIError(
                .forbidden, "you are not a member of group '\(record.name)': \(record.joinPolicy == .open ? "join it" : "ask to join") first",
                reason: "not_member")
        case .room:
            APIError(.forbidden, "you are not in room '\(record.name)': enter it first", reason: "not_present")
        case .direct:
            APIError(.notFound, "no conversation \(record.id)")
        }
    }

    /// The 404 for a group that does not exist, or that the caller may not know of: the
    /// same words for both.
    static func noSuchGroup(_ name: String) -> APIError {
        APIError(.notFound, "no group '\(name)'")
    }
}
