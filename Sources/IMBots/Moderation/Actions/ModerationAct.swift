import IMProtocol

/// One thing a moderation action asks the server to do, with every template rendered:
/// what `BotEffects.moderate(_:)` carries out.
public enum ModerationAct: Sendable, Hashable, CustomStringConvertible {
    /// Deletes a message for everyone.
    case delete(MessageID, in: ConversationAddress)
    /// Mutes, unmutes, kicks, bans or unbans a member of a group.
    case member(ModerationAction, group: String, user: String, duration: ConfigDuration?, reason: String?)
    /// Approves (true) or denies a join request.
    case joinRequest(approve: Bool, group: String, user: String)
    /// Approves (true) or denies every join request waiting in a group.
    case allJoinRequests(approve: Bool, group: String)
    /// Changes a group's settings: who may join, slow mode.
    case settings(group: String, GroupSettings)

    /// `delete message 12 in group:lobby`, `mute alice in group:lobby for 10m`...
    public var description: String {
        switch self {
        case .delete(let id, let address):
            return "delete message \(id) in \(address)"
        case .member(let action, let group, let user, let duration, _):
            return "\(action.rawValue) \(user) in group:\(group)" + (duration.map { " for \($0)" } ?? "")
        case .joinRequest(let approve, let group, let user):
            return (approve ? "approve" : "deny") + " the join request of \(user) to group:\(group)"
        case .allJoinRequests(let approve, let group):
            return (approve ? "approve" : "deny") + " every waiting join request to group:\(group)"
        case .settings(let group, let settings):
            var parts: [String] = []
            if let join = settings.join { parts.append("join \(join.rawValue)") }
            if let slow = settings.slowMode { parts.append(slow.seconds == 0 ? "slow mode off" : "slow mode \(slow)") }
            if let newMembers = settings.newMembers { parts.append("new members \(newMembers.rawValue)") }
            return "set " + parts.joined(separator: ", ") + " in group:\(group)"
        }
    }

    /// The member acted on, if it is about one.
    public var user: String? {
        switch self {
        case .member(_, _, let user, _, _), .joinRequest(_, _, let user): user
        case .delete, .settings, .allJoinRequests: nil
        }
    }
}
