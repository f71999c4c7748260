import IMProtocol

/// What this user may do to one member of a group, by the ladder the server applies (an
/// admin moderates members; the owner moderates admins too, promotes and demotes; nobody
/// acts on someone at or above their own role), so the info view offers only what the
/// server would allow. The server still decides: a role changed meanwhile is refused there.
public enum MemberActions {
    /// The actions `me` (nil: not a member) may take on `target`, in menu order.
    public static func allowed(me: MemberRole?, target: Member, myName: String) -> [ModerationAction] {
        guard let me, me >= .admin, target.user.username != myName, target.role < me else { return [] }
        var actions: [ModerationAction] = []
        actions.append(target.muted == true || target.restricted == true ? .unmute : .mute)
        actions += [.kick, .ban]
        if me == .owner { actions.append(target.role == .admin ? .demote : .promote) }
        return actions
    }

    /// True when `me` may delete a message of someone else in a group.
    public static func deletesOthers(_ me: MemberRole?) -> Bool { (me ?? .member) >= .admin }

    /// The key that picks `action` in the actions menu (the menu moves with the arrows
    /// only, so no shortcut is also a way to move).
    public static func shortcut(_ action: ModerationAction) -> Character {
        switch action {
        case .mute: "m"
        case .unmute: "u"
        case .kick: "r"
        case .ban: "b"
        case .unban: "n"
        case .promote: "p"
        case .demote: "d"
        case .transfer: "t"
        }
    }

    /// The menu's words for `action`.
    public static func label(_ action: ModerationAction, _ target: Member) -> String {
        switch action {
        case .mute: "Mute…"
        case .unmute: target.restricted == true ? "Let post (lift the newcomer wait)" : "Unmute"
        case .kick: "Remove from the group…"
        case .ban: "Ban…"
        case .unban: "Unban"
        case .promote: "Make admin"
        case .demote: "Make member again"
        case .transfer: "Hand the group over"
        }
    }

    /// True when the action asks for a duration or a reason first.
    public static func asksFirst(_ action: ModerationAction) -> Bool {
        action == .mute || action == .kick || action == .ban
    }

    /// What the status line says once the server has done `result`.
    public static func done(_ result: ModerationResult) -> String {
        guard result.changed else { return "nothing to change for \(result.user)" }
        switch result.action {
        case .mute: return "muted \(result.user)"
        case .unmute: return "\(result.user) may post again"
        case .kick: return "removed \(result.user) from #\(result.group)"
        case .ban: return "banned \(result.user) from #\(result.group)"
        case .unban: return "unbanned \(result.user)"
        case .promote: return "\(result.user) is an admin now"
        case .demote: return "\(result.user) is a member again"
        case .transfer: return "\(result.user) owns #\(result.group) now"
        }
    }
}
