import IMProtocol

/// The Sessions, Contacts and Profile screens: three tabs of one main screen.
extension ChatModel {
    static let tabs: [Screen] = [.sessions, .contacts, .profile]

    mutating func mainKey(_ key: Key) -> [ChatEffect] {
        // A text field or menu open on a screen takes every key first.
        if screen == .contacts, contacts.prompt != nil || contacts.menu != nil || contacts.info?.editing != nil {
            return contactsKey(key)
        }
        if screen == .profile, profile.editing != nil || profile.confirmingLogout { return profileKey(key) }
        switch key {
        case .character("1"): screen = .sessions
        case .character("2"): screen = .contacts
        case .character("3"): screen = .profile
        case .tab: screen = Self.tabs[((Self.tabs.firstIndex(of: screen) ?? 0) + 1) % Self.tabs.count]
        case .backTab: screen = Self.tabs[((Self.tabs.firstIndex(of: screen) ?? 0) + 2) % Self.tabs.count]
        case .character("?"): showHelp = true
        case .character("q"): return [.quit]
        default:
            switch screen {
            case .sessions: return sessionsKey(key)
            case .contacts: return contactsKey(key)
            default: return profileKey(key)
            }
        }
        return []
    }

    private var pageRows: Int { max(1, (rows - 4) / 2 - 1) }

    // MARK: Sessions

    private mutating func sessionsKey(_ key: Key) -> [ChatEffect] {
        switch key {
        case .up, .character("k"), .wheelUp: sessions.move(-1)
        case .down, .character("j"), .wheelDown: sessions.move(1)
        case .pageUp: sessions.move(-pageRows)
        case .pageDown: sessions.move(pageRows)
        case .home, .character("g"): sessions.move(-sessions.rows.count)
        case .end, .character("G"): sessions.move(sessions.rows.count)
        case .character("r"): return [.loadSessions]
        case .enter, .right:
            guard let index = sessions.selectedIndex else { return [] }
            let row = sessions.rows[index]
            sessions.selectedID = row.id
            return openDialogue(
                DialogueKey(address: row.address, id: row.id), kind: row.kind, title: row.displayName,
                readMarker: row.lastReadSeq, unread: row.unread)
        default: break
        }
        return []
    }

    // MARK: Contacts

    private mutating func contactsKey(_ key: Key) -> [ChatEffect] {
        if contacts.prompt != nil { return promptKey(key) }
        if let index = contacts.menu {
            let items = ContactsState.MenuItem.allCases
            switch key {
            case .up: contacts.menu = max(0, index - 1)
            case .down: contacts.menu = min(items.count - 1, index + 1)
            case .escape, .character("+"): contacts.menu = nil
            case .enter: openPrompt(items[index])
            case .character(let letter):
                if let item = items.first(where: { $0.shortcut == letter }) { openPrompt(item) }
            default: break
            }
            return []
        }
        if contacts.info != nil { return infoKey(key) }
        switch key {
        case .up, .character("k"), .wheelUp: contacts.move(-1)
        case .down, .character("j"), .wheelDown: contacts.move(1)
        case .pageUp: contacts.move(-pageRows)
        case .pageDown: contacts.move(pageRows)
        case .character("+"), .character("a"): contacts.menu = 0
        case .character("r"): return [.loadContacts]
        case .character("m"):
            guard let item = contacts.selectedItem else { return [] }
            return open(item)
        case .enter, .right:
            guard let item = contacts.selectedItem else { return [] }
            contacts.info = ContactsState.Info(item: item)
            switch item {
            case .contact(let user): return [.loadUser(user.username)]
            case .group(let info), .room(let info): return [.loadInfo(info.kind, info.name)]
            }
        default: break
        }
        return []
    }

    private mutating func openPrompt(_ item: ContactsState.MenuItem) {
        contacts.menu = nil
        contacts.prompt = ContactsState.Prompt(item: item)
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
            case .createGroup: return [.createGroup(name)]
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
        guard var info = contacts.info else { return [] }
        if var form = info.editing {
            switch key {
            case .escape:
                info.editing = nil
            case .tab, .backTab, .up, .down:
                form.focusDescription.toggle()
                info.editing = form
            case .enter:
                let title = form.title.text.trimmingSpaces()
                guard !title.isEmpty else {
                    status = ("The title cannot be empty.", true)
                    return []
                }
                let update = ConversationInfoUpdate(title: title, description: form.description.text.trimmingSpaces())
                return [.updateInfo(info.item.kind, info.item.name, update)]
            default:
                if form.focusDescription { form.description.edit(key) } else { form.title.edit(key) }
                info.editing = form
            }
            contacts.info = info
            return []
        }
        switch key {
        case .escape, .left, .backspace:
            contacts.info = nil
        case .enter, .character("m"):
            return open(info.item)
        case .character("r"):
            switch info.item {
            case .contact(let user): return [.loadUser(user.username)]
            case .group(let group), .room(let group): return [.loadInfo(group.kind, group.name)]
            }
        case .character("x"):
            if case .contact(let user) = info.item { return [.removeContact(user.username)] }
        case .character("l"):
            switch info.item {
            case .group(let group), .room(let group): return [.leave(group.kind, group.name)]
            case .contact: break
            }
        case .character("e"):
            switch info.item {
            case .group(let group), .room(let group):
                info.editing = ContactsState.EditForm(
                    title: TextField(group.title, limit: Limits.nicknameLength.upperBound),
                    description: TextField(group.description, limit: Limits.descriptionLength.upperBound))
                contacts.info = info
            case .contact: break
            }
        default: break
        }
        return []
    }

    /// Opens the conversation of a contact, group or room.
    private mutating func open(_ item: ContactsState.Item) -> [ChatEffect] {
        let key = DialogueKey(address: item.address)
        let row = sessions.rows.first { key.matches(DialogueKey(address: $0.address)) }
        return openDialogue(
            DialogueKey(address: item.address, id: row?.id), kind: item.kind, title: row?.displayName ?? item.title,
            readMarker: row?.lastReadSeq ?? 0, unread: row?.unread ?? 0)
    }

    // MARK: Profile

    private mutating func profileKey(_ key: Key) -> [ChatEffect] {
        if profile.confirmingLogout {
            profile.confirmingLogout = false
            return key == .character("y") || key == .character("Y") ? [.logout] : []
        }
        if let field = profile.editing {
            switch key {
            case .escape:
                profile.editing = nil
            case .enter:
                let value = profile.field.text.trimmingSpaces()
                profile.saving = true
                profile.note = nil
                switch field {
                case .nickname:
                    guard !value.isEmpty else {
                        profile.saving = false
                        profile.note = "The nickname cannot be empty."
                        profile.noteIsError = true
                        return []
                    }
                    return [.updateProfile(ProfileUpdate(nickname: value))]
                case .signature: return [.updateProfile(ProfileUpdate(signature: value))]
                case .avatar:
                    guard !value.isEmpty else {
                        profile.saving = false
                        return []
                    }
                    return [.uploadAvatar(path: value)]
                }
            default:
                profile.field.edit(key)
            }
            return []
        }
        switch key {
        case .character("n"):
            profile.editing = .nickname
            profile.field = TextField(me?.nickname ?? "", limit: Limits.nicknameLength.upperBound)
        case .character("s"):
            profile.editing = .signature
            profile.field = TextField(me?.signature ?? "", limit: Limits.signatureLength.upperBound)
        case .character("a"):
            profile.editing = .avatar
            profile.field = TextField("", limit: 1024)
        case .character("o"):
            profile.confirmingLogout = true
        default: break
        }
        profile.note = nil
        return []
    }
}
