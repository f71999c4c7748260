import IMProtocol

/// The words of the system notices that group acts leave in the group, naming who did
/// them ("alice muted bob for 10m: flooding").
enum GroupNotices {
    static func moderation(
        _ action: ModerationAction, by actor: String, target: String, duration: ConfigDuration?, reason: String?
    ) -> String {
        let what: String
        switch action {
        case .mute: what = "muted \(target)"
        case .unmute: what = "unmuted \(target)"
        case .kick: what = "removed \(target) from the group"
        case .ban: what = "banned \(target)"
        case .unban: what = "unbanned \(target)"
        case .promote: what = "made \(target) an admin"
        case .demote: what = "made \(target) a member again"
        case .transfer: what = actor == target ? "took the group over" : "made \(target) the group's owner"
        }
        let span = duration.map { " for \($0)" } ?? ""
        return "\(actor) \(what)\(span)\(reason.map { ": \($0)" } ?? "")"
    }
}
