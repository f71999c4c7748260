/// How a member came into a group, as a `member_joined` event tells it (`via`): through
/// an open door, an invitation, or a request an admin approved.
public enum JoinVia: String, Sendable, Hashable, CaseIterable, Decodable {
    case open
    case invite
    case approval
}
