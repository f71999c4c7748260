import IMProtocol

/// The Sessions, Contacts and Profile screens: three tabs of one main screen (the
/// Contacts screen's own keys: `ChatModel+Contacts.swift`).
extension ChatModel {
    static let tabs: [Screen] = [.sessions, .contacts, .profile]

    mutating func mainKey(_ key: Key) -> [ChatEffect] {
        // A text field or menu open on a screen takes every key first.
        if screen == .contacts, contacts.takesEveryKey { return contactsKey(key) }
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

    var pageRows: Int { max(1, (rows - 4) / 2 - 1) }

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
