import IMProtocol

/// The slash commands of the input line (`SlashCommand`), run in the open dialogue.
extension ChatModel {
    mutating func run(_ command: SlashCommand) -> [ChatEffect] {
        guard let state = dialogue else { return [] }
        let group: String? = if case .group(let name) = state.key.address { name } else { nil }
        func needsGroup(_ what: String) -> [ChatEffect] {
            status = ("\(what) works in a group: open one first", true)
            return []
        }
        switch command {
        case .help:
            showHelp = true
            showCommands = true
            return []
        case .me(let action):
            return sendTyped(["/me " + action])
        case .join(let kind, let name):
            let name = name.lowercased()
            return kind == .room ? [.enterRoom(name)] : [.joinGroup(name)]
        case .leave:
            switch state.key.address {
            case .group(let name): confirmation = .leave(.group, name)
            case .room(let name): confirmation = .leave(.room, name)
            default: status = ("a direct conversation cannot be left: /close goes back to the list", true)
            }
            return []
        case .invite(let user):
            guard let group else { return needsGroup("/invite") }
            return [.invite(group: group, user: user.lowercased())]
        case .nick(let nickname):
            guard !nickname.isEmpty else { return [] }
            return [.updateProfile(ProfileUpdate(nickname: nickname))]
        case .msg(let user, let text):
            status = ("sent to \(user) (Alt-A or /query \(user) opens the conversation)", false)
            return queue(text, to: DialogueKey(address: .user(user.lowercased())))
        case .query(let user):
            let key = DialogueKey(address: .user(user.lowercased()))
            let row = sessions.rows.first { key.matches(DialogueKey(address: $0.address)) }
            if let row { return openRow(row) }
            return openDialogue(key, kind: .direct, title: user, readMarker: 0, unread: 0)
        case .topic(let text):
            let kind = state.kind
            guard kind != .direct, let name = state.key.name else {
                status = ("a direct conversation has no topic", true)
                return []
            }
            guard let text else {
                let info = (kind == .group ? contacts.groups : contacts.rooms).first { $0.name == name }
                status = ("topic: " + ((info?.description.isEmpty ?? true) ? "(none)" : info?.description ?? ""), false)
                return []
            }
            return [.updateInfo(kind, name, ConversationInfoUpdate(description: text))]
        case .whois(let user):
            return [.whois(user.lowercased())]
        case .names:
            guard let members = state.members else {
                status = (state.kind == .direct ? "just the two of you" : "the members are loading…", false)
                return []
            }
            let names = members.map { member in
                displayName(member.user.username) + (member.role == .member ? "" : " (\(member.role.rawValue))")
            }
            status = ("\(Plural.count(members.count, state.kind == .room ? "person" : "member", plural: state.kind == .room ? "people" : nil)): " + names.joined(separator: ", "), false)
            return []
        case .moderate(let action, let user, let argument):
            guard let group else { return needsGroup("/\(action)") }
            guard let verb = ModerationAction(rawValue: action) else { return [] }
            var duration: ConfigDuration?
            var reason = argument
            if verb.takesDuration, let first = argument?.split(separator: " ").first, let parsed = ConfigDuration(String(first)) {
                duration = parsed
                reason = argument.map { String($0.dropFirst(first.count)).trimmingSpaces() }.flatMap { $0.isEmpty ? nil : $0 }
            }
            return [.moderate(group: group, ModerationRequest(action: verb, user: user.lowercased(), duration: duration, reason: reason))]
        case .block(let user):
            confirmation = .block(user.lowercased())
            return []
        case .unblock(let user):
            return [.unblock(user.lowercased())]
        case .list(let search):
            closeDialogue()
            screen = .contacts
            return openDirectory(search: search ?? "")
        case .create(let name):
            closeDialogue()
            screen = .contacts
            contacts.info = nil
            contacts.menu = nil
            contacts.groupForm = GroupForm.creating(name: name ?? "")
            return []
        case .close:
            closeDialogue()
            return []
        case .quit:
            confirmation = .quit
            return []
        case .usage(let usage):
            status = ("usage: \(usage)", true)
            dialogue?.compose.set(usage.hasPrefix("/") ? String(usage.prefix { $0 != " " }) + " " : "")
            return []
        }
    }
}
