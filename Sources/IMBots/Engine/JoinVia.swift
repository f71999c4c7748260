import IMProtocol

/// How a member came into a group, as a `member_joined` event tells it (`via`): through
/// an open door, an invitation, or a request an admin approved.
public enum JoinVia: String, Sendable, Hashable, CaseIterable, Decodable {
    case open
    case invite
    case approval

    /// The feed's word for it (`Event.via`).
    init(_ policy: JoinPolicy) {
        switch policy {
        case .open: self = .open
        case .invite: self = .invite
        case .approval: self = .approval
        }
    }
}

extension JoinPolicy {
    /// The policy a member came in by.
    init(_ via: JoinVia) {
        switch via {
        case .open: self = .open
        case .invite: self = .invite
        case .approval: self = .approval
        }
    }
}
