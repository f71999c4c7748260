import IMProtocol

/// The Contacts screen's keys: the list (with invitations and join requests), the "+"
/// menu and its prompts, and the info pages (the members' actions menu:
/// `ChatModel+Moderation.swift`).
extension ChatModel {
    mutating func contactsKey(_ key: Key) -> [ChatEffect] {
        if contacts.directory != nil { return directoryKey(key) }
        if contacts.groupForm != nil { return groupFormKey(key) }
        if contacts.prompt != nil { return promptKey(key) }
        if let index = contacts.menu {
            // Only the arrows move here: every letter picks its item.
            let items = ContactsState.MenuItem.allCases
            switch key {
            case .up: contacts.menu = max(0, index - 1)
            case .down: contacts.menu = min(items.count - 1, index + 1)
            case .escape, .character("+"): contacts.menu = nil
            case .enter: return openPrompt(items[index])
            case .character(let letter):
                if let item = items.first(where: { $0.shortcut == letter }) { return openPrompt(item) }
            default: break
            }
            return []
        }
        if contacts.info != nil { return infoKey(key) }
        let item = contacts.selectedItem
        // An invitation or request: its keys, as on Sessions.
        if let item, !item.opensConversation, let effects = waitingKey(key == .right ? .enter : key, item) { return effects }
        switch key {
        case .up, .character("k"), .wheelUp: contacts.move(-1)
        case .down, .character("j"), .wheelDown: contacts.move(1)
        case .pageUp: contacts.move(-pageRows)
        case .pageDown: contacts.move(pageRows)
        case .character("+"), .character("a"): contacts.menu = 0
        case .character("r"): return [.loadContacts]
        case .character("m"):
            guard let item, item.opensConversation else { return [] }
            return open(item)
        case .enter, .right:
            guard let item, item.opensConversation else { return [] }
            contacts.info = ContactsState.Info(item: item)
            return reloadInfo(item)
        default: break
        }
        return []
    }

    private mutating func openPrompt(_ item: ContactsState.MenuItem) -> [ChatEffect] {
        contacts.menu = nil
        switch item {
        case .createGroup:
            contacts.groupForm = .creating()
            return []
        case .browseGroups:
            return openDirectory(search: "")
        default:
            contacts.prompt = ContactsState.Prompt(item: item)
            return []
        }
    }

    private mutating func promptKey(_ key: Key) -> [ChatEffect] {
        guard var prompt = contacts.prompt else { return [] }
        switch key {
        case .escape:
            contacts.prompt = nil
            return []
        case .enter:
            let name = prompt.field.text.trimmingSpaces().lowercased()
            guard !name.isEmpty else {
                status = ("Type a name first.", true)
                return []
            }
            switch prompt.item {
            case .addContact: return [.addContact(name)]
            case .createGroup, .browseGroups: return []
            case .joinGroup: return [.joinGroup(name)]
            case .createRoom: return [.createRoom(name)]
            case .enterRoom: return [.enterRoom(name)]
            }
        default:
            prompt.field.edit(key)
            contacts.prompt = prompt
            return []
        }
    }

    private mutating func infoKey(_ key: Key) -> [ChatEffect] {
        guard let info = contacts.info else { return [] }
        if info.form != nil { return infoFormKey(key) }
        if info.actionMenu != nil { return actionMenuKey(key) }
        switch key {
        case .escape, .left, .backspace:
            contacts.info = nil
        case .character("m"):
            return open(info.item)
        case .character("r"):
            return reloadInfo(info.item)
        default:
            switch info.item {
            case .contact(let user): return contactInfoKey(key, user)
            case .group(let group), .room(let group): return conversationInfoKey(key, group, info)
            case .invite, .request, .myRequest: break
            }
        }
        return []
    }

    private mutating func contactInfoKey(_ key: Key, _ user: User) -> [ChatEffect] {
        switch key {
        case .enter: return open(.contact(user))
        case .character("x"):
            confirmation = .removeContact(user.username)
            return []
        case .character("b"):
            // Blocking asks first; unblocking takes it back at once.
            if contacts.blocked.contains(user.username) { return [.unblock(user.username)] }
            confirmation = .block(user.username)
            return []
        default: return []
        }
    }

    private mutating func conversationInfoKey(_ key: Key, _ group: ConversationInfo, _ info: ContactsState.Info)
        -> [ChatEffect]
    {
        let moderated = group.kind == .group
        // A group's powers follow this user's role, which its members list tells.
        if moderated, info.members == nil, key == .character("e") || key == .character("i") {
            status = ("loading the members first…", false)
            return []
        }
        switch key {
        case .up, .character("k"), .down, .character("j"):
            guard moderated, let count = info.members?.count, count > 0 else { return [] }
            let step = key == .up || key == .character("k") ? -1 : 1
            let next = info.selectedMember.map { $0 + step } ?? (step > 0 ? 0 : count - 1)
            contacts.info?.selectedMember = next < 0 ? nil : min(next, count - 1)
        case .enter:
            guard moderated, let member = info.member else { return open(info.item) }
            return openActionMenu(member, in: info)
        case .character("l"):
            confirmation = .leave(group.kind, group.name)
        case .character("i") where moderated:
            guard (info.role(of: myName) ?? .member) >= .admin else {
                status = ("only the group's owner and admins may invite people", true)
                return []
            }
            contacts.info?.form = .invite(TextField("", limit: Limits.usernameLength.upperBound))
        case .character("e"):
            guard Self.mayEdit(group, role: info.role(of: myName)) else {
                status = ("only the group's owner and admins may change its info", true)
                return []
            }
            let form = GroupForm.editing(group, settings: (info.role(of: myName) ?? .member) >= .admin)
            contacts.info?.form = .edit(form)
        default:
            break
        }
        return []
    }

    /// Whether someone of `role` may change a group's or room's title and description.
    static func mayEdit(_ group: ConversationInfo, role: MemberRole?) -> Bool {
        group.kind == .room || group.infoEditableBy == .members || (role ?? .member) >= .admin
    }

    /// The keys of an info page's open form.
    private mutating func infoFormKey(_ key: Key) -> [ChatEffect] {
        guard var info = contacts.info, let form = info.form else { return [] }
        if key == .escape {
            contacts.info?.form = nil
            return []
        }
        switch form {
        case .edit(var edit):
            guard key == .enter else {
                edit.key(key)
                info.form = .edit(edit)
                contacts.info = info
                return []
            }
            switch edit.update() {
            case .success(let update) where update.isEmpty:
                contacts.info?.form = nil
                status = ("nothing changed", false)
                return []
            case .success(let update):
                return [.updateInfo(info.item.kind, info.item.name, update)]
            case .failure(let error):
                status = (error.message, true)
                return []
            }
        case .moderate(let moderation):
            return moderationFormKey(key, moderation)
        case .invite(var field):
            guard key == .enter else {
                field.edit(key)
                info.form = .invite(field)
                contacts.info = info
                return []
            }
            let name = field.text.trimmingSpaces().lowercased()
            guard !name.isEmpty else {
                status = ("Type a username first.", true)
                return []
            }
            return [.invite(group: info.item.name, user: name)]
        }
    }

    private func reloadInfo(_ item: ContactsState.Item) -> [ChatEffect] {
        switch item {
        case .contact(let user): [.loadUser(user.username)]
        case .group(let group), .room(let group): [.loadInfo(group.kind, group.name)]
        case .invite, .request, .myRequest: []
        }
    }

    /// Opens the conversation of a contact, group or room.
    private mutating func open(_ item: ContactsState.Item) -> [ChatEffect] {
        guard item.opensConversation else { return [] }
        let key = DialogueKey(address: item.address)
        let row = sessions.rows.first { key.matches(DialogueKey(address: $0.address)) }
        return openDialogue(
            DialogueKey(address: item.address, id: row?.id), kind: item.kind, title: row?.displayName ?? item.title,
            readMarker: row?.lastReadSeq ?? 0, unread: row?.unread ?? 0)
    }
}

extension ContactsState.Item {
    /// False for invitations and requests: they are about a group not joined yet.
    var opensConversation: Bool {
        switch self {
        case .contact, .group, .room: true
        case .invite, .request, .myRequest: false
        }
    }
}
