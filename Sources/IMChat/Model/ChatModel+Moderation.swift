import IMProtocol

/// A group's info page for its owner and admins: the selected member's actions menu
/// (only what this user's role allows on theirs) and the form of a mute, kick or ban.
extension ChatModel {
    /// The actions this user may take on `member` of the group shown.
    func memberActions(_ member: Member, in info: ContactsState.Info) -> [ModerationAction] {
        MemberActions.allowed(me: info.role(of: myName), target: member, myName: myName)
    }

    mutating func openActionMenu(_ member: Member, in info: ContactsState.Info) -> [ChatEffect] {
        guard !memberActions(member, in: info).isEmpty else {
            status = (member.user.username == myName
                ? "that is you: Esc goes back"
                : "your role in this group lets you do nothing to \(member.user.username)", false)
            return []
        }
        contacts.info?.actionMenu = 0
        return []
    }

    mutating func actionMenuKey(_ key: Key) -> [ChatEffect] {
        guard let info = contacts.info, let index = info.actionMenu, let member = info.member else {
            contacts.info?.actionMenu = nil
            return []
        }
        let actions = memberActions(member, in: info)
        // Only the arrows move: every letter is an action's shortcut, so a letter never
        // both moves the cursor and picks something.
        switch key {
        case .up: contacts.info?.actionMenu = max(0, index - 1)
        case .down: contacts.info?.actionMenu = min(actions.count - 1, index + 1)
        case .escape: contacts.info?.actionMenu = nil
        case .enter:
            guard actions.indices.contains(index) else { return [] }
            return choose(actions[index], on: member, in: info)
        case .character(let letter):
            guard let action = actions.first(where: { MemberActions.shortcut($0) == letter }) else { return [] }
            return choose(action, on: member, in: info)
        default: break
        }
        return []
    }

    /// Takes `action` at once, or asks for its duration and reason first.
    private mutating func choose(_ action: ModerationAction, on member: Member, in info: ContactsState.Info)
        -> [ChatEffect]
    {
        contacts.info?.actionMenu = nil
        let user = member.user.username
        if MemberActions.asksFirst(action) {
            contacts.info?.form = .moderate(ContactsState.ModerationForm(action: action, user: user))
            return []
        }
        return [.moderate(group: info.item.name, ModerationRequest(action: action, user: user))]
    }

    mutating func moderationFormKey(_ key: Key, _ form: ContactsState.ModerationForm) -> [ChatEffect] {
        guard let info = contacts.info else { return [] }
        var form = form
        switch key {
        case .tab, .backTab, .up, .down:
            if form.action.takesDuration { form.focusReason.toggle() }
        case .enter:
            switch form.request() {
            case .success(let request): return [.moderate(group: info.item.name, request)]
            case .failure(let error):
                status = (error.message, true)
                return []
            }
        default:
            if form.focusReason { form.reason.edit(key) } else { form.duration.edit(key) }
        }
        contacts.info?.form = .moderate(form)
        return []
    }
}
