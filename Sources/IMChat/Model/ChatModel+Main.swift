import IMProtocol

/// The Sessions, Contacts and Profile screens: three tabs of one main screen (the
/// Contacts screen's own keys: `ChatModel+Contacts.swift`).
extension ChatModel {
    static let tabs: [Screen] = [.sessions, .contacts, .profile]

    mutating func mainKey(_ key: Key) -> [ChatEffect] {
        // A text field or menu open on a screen takes every key first.
        if screen == .contacts, contacts.takesEveryKey { return contactsKey(key) }
        if screen == .profile, profile.editing != nil || profile.confirmingLogout || profile.password != nil {
            return profileKey(key)
        }
        switch key {
        case .character("1"): screen = .sessions
        case .character("2"): screen = .contacts
        case .character("3"): screen = .profile
        case .tab: screen = Self.tabs[((Self.tabs.firstIndex(of: screen) ?? 0) + 1) % Self.tabs.count]
        case .backTab: screen = Self.tabs[((Self.tabs.firstIndex(of: screen) ?? 0) + 2) % Self.tabs.count]
        case .character("?"):
            showHelp = true
            showCommands = false
        case .character("q"): confirmation = .quit
        default:
            switch screen {
            case .sessions: return sessionsKey(key)
            case .contacts: return contactsKey(key)
            default: return profileKey(key)
            }
        }
        return []
    }

    var pageRows: Int { max(1, (rows - 4) / 2 - 1) }

    // MARK: Sessions

    /// Invitations to this user and join requests, listed above the conversations.
    var waiting: [ContactsState.Item] {
        contacts.sections.filter { $0.section == .invitations || $0.section == .requests }.flatMap(\.items)
    }

    /// The selected invitation or request on Sessions, if one is selected.
    var selectedWaiting: ContactsState.Item? {
        let items = waiting
        guard let index = sessions.waitingSelected, !items.isEmpty else { return nil }
        return items[min(index, items.count - 1)]
    }

    /// Moves the Sessions selection through the invitations and requests, then the conversations.
    mutating func moveSessions(_ offset: Int) {
        let waitingCount = waiting.count
        let total = waitingCount + sessions.rows.count
        guard total > 0 else { return }
        let current = sessions.waitingSelected.map { min($0, waitingCount - 1) } ?? (waitingCount + (sessions.selectedIndex ?? 0))
        let next = min(max(current + offset, 0), total - 1)
        if next < waitingCount {
            sessions.waitingSelected = next
        } else {
            sessions.waitingSelected = nil
            sessions.selectedID = sessions.rows[next - waitingCount].id
        }
    }

    private mutating func sessionsKey(_ key: Key) -> [ChatEffect] {
        if let item = selectedWaiting, let effects = waitingKey(key, item) { return effects }
        switch key {
        case .up, .character("k"), .wheelUp: moveSessions(-1)
        case .down, .character("j"), .wheelDown: moveSessions(1)
        case .pageUp: moveSessions(-pageRows)
        case .pageDown: moveSessions(pageRows)
        case .home, .character("g"): moveSessions(-(waiting.count + sessions.rows.count))
        case .end, .character("G"): moveSessions(waiting.count + sessions.rows.count)
        case .character("r"): return [.loadSessions, .loadContacts]
        case .enter, .right:
            guard let index = sessions.selectedIndex else { return [] }
            return openRow(sessions.rows[index])
        default: break
        }
        return []
    }

    /// An invitation's or request's keys, wherever it is listed: Enter or `a` accepts
    /// (joins, approves), `x` declines (denies, withdraws); nil for other keys.
    mutating func waitingKey(_ key: Key, _ item: ContactsState.Item) -> [ChatEffect]? {
        switch (item, key) {
        case (.invite(let invite), .enter), (.invite(let invite), .character("a")):
            return [.joinGroup(invite.group)]
        case (.invite(let invite), .character("x")):
            return [.declineInvite(group: invite.group)]
        case (.request(let request), .character("a")):
            return [.approveRequest(group: request.group, user: request.user)]
        case (.request(let request), .character("x")), (.myRequest(let request), .character("x")):
            return [.revokeRequest(group: request.group, user: request.user)]
        case (.request, .enter):
            status = ("a approves the request, x denies it", false)
            return []
        case (.myRequest, .enter):
            status = ("an admin of the group decides; x withdraws your request", false)
            return []
        default:
            return nil
        }
    }

    // MARK: Profile

    private mutating func profileKey(_ key: Key) -> [ChatEffect] {
        if profile.confirmingLogout {
            profile.confirmingLogout = false
            return key == .character("y") || key == .character("Y") ? [.logout] : []
        }
        if profile.password != nil { return passwordKey(key) }
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
        case .character("p"):
            profile.password = ProfileState.PasswordForm()
        case .character("o"):
            profile.confirmingLogout = true
        default: break
        }
        profile.note = nil
        return []
    }

    /// The password form: the current password, the new one twice; Enter on the last saves.
    private mutating func passwordKey(_ key: Key) -> [ChatEffect] {
        guard var form = profile.password else { return [] }
        switch key {
        case .escape:
            profile.password = nil
            return []
        case .tab, .down:
            form.focus = (form.focus + 1) % 3
        case .backTab, .up:
            form.focus = (form.focus + 2) % 3
        case .enter:
            if form.focus < 2 {
                form.focus += 1
                break
            }
            func refuse(_ text: String, focus: Int) -> [ChatEffect] {
                form.focus = focus
                profile.password = form
                profile.note = text
                profile.noteIsError = true
                return []
            }
            if form.current.isEmpty { return refuse("Type your current password first.", focus: 0) }
            if form.new.text.utf8.count < Limits.passwordBytes.lowerBound {
                return refuse("The new password needs at least \(Limits.passwordBytes.lowerBound) characters.", focus: 1)
            }
            if form.new.text != form.confirm.text {
                form.confirm.set("")
                return refuse("The two new passwords differ: type the second again.", focus: 2)
            }
            profile.password = form
            profile.saving = true
            profile.note = nil
            return [.changePassword(old: form.current.text, new: form.new.text)]
        default:
            switch form.focus {
            case 0: form.current.edit(key)
            case 1: form.new.edit(key)
            default: form.confirm.edit(key)
            }
        }
        profile.password = form
        profile.note = nil
        return []
    }
}
