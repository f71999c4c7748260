import IMProtocol

/// Who may do what in a group. Every store applies these inside the transaction of the
/// act, to the roles it read in that transaction, so the rules live once and a role
/// that changes concurrently is never acted on from a stale read.
///
/// The ladder: a member moderates nobody; an admin moderates members; the owner
/// moderates admins too, promotes, demotes and hands the group over; a server
/// administrator stands above the owner in every group (an operator can always manage
/// the groups a bot created). Nobody acts on someone at or above their own standing.
public enum GroupRules {
    /// Where someone stands in one group, lowest first: not a member, then the roles, then
    /// a server administrator.
    public enum Standing: Int, Comparable, Sendable {
        case outsider, member, admin, owner, serverAdministrator

        /// The standing of someone with `role` in the group (nil: not a member).
        public init(role: MemberRole?, isServerAdministrator: Bool = false) {
            if isServerAdministrator {
                self = .serverAdministrator
                return
            }
            switch role {
            case nil: self = .outsider
            case .member?: self = .member
            case .admin?: self = .admin
            case .owner?: self = .owner
            }
        }

        public static func < (lhs: Standing, rhs: Standing) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Throws `.refused` unless `actor` stands at least at `needed`'s level: `not_group_owner`
    /// for the owner's powers, `not_group_admin` for the admins'.
    public static func require(_ needed: MemberRole, actor: Standing, to doWhat: String) throws {
        guard actor < Standing(role: needed) else { return }
        if needed == .owner {
            throw StoreError.refused(reason: "not_group_owner", message: "only the group's owner may \(doWhat)")
        }
        throw StoreError.refused(reason: "not_group_admin", message: "only the group's owner and admins may \(doWhat)")
    }

    /// Throws `.refused` unless `actor` may delete a message someone else sent in a
    /// conversation of `kind`, the sender's role in it being `sender` now (nil: no longer a
    /// member). Only in a group, and only above the sender: an admin deletes members'
    /// messages (and those of people who left), the owner admins' too, a server
    /// administrator anyone's (`not_sender` below admin, `outranked` at or below the sender).
    public static func authorizeDeletion(in kind: ConversationKind, actor: Standing, sender: MemberRole?) throws {
        guard kind == .group else {
            throw StoreError.refused(reason: "not_sender", message: "only its sender may delete a message")
        }
        guard actor >= .admin else {
            throw StoreError.refused(reason: "not_sender", message: "only its sender or a group admin may delete a message")
        }
        guard Standing(role: sender) < actor else {
            throw StoreError.refused(
                reason: "outranked",
                message: "you cannot delete a message of someone at or above your own role: ask the group's owner")
        }
    }

    /// Throws `.refused` unless `actor` may take `action` on someone whose role in the
    /// group is `target` (nil: not a member).
    public static func authorize(_ action: ModerationAction, actor: Standing, target: MemberRole?) throws {
        try require(action.requiredRole, actor: actor, to: "\(action.rawValue) members")
        guard Standing(role: target) < actor else {
            throw StoreError.refused(
                reason: "outranked",
                message: "you cannot \(action.rawValue) someone at or above your own role: ask the group's owner")
        }
    }
}
