import IMProtocol

/// What the answers to commands do to the screens.
extension ChatModel {
    mutating func apply(_ result: ChatResult) -> [ChatEffect] {
        // An answer to a call of a login that has ended since belongs to no screen.
        if me == nil, !result.isAboutLoggingIn { return [] }
        switch result {
        case .lastUser(let name, let user):
            if let name, login.username.isEmpty {
                login.username.set(name)
                login.focus = .password
            }
            login.savedProfile = user
            login.profileFor = name
            return []
        case .localProfile(let name, let user):
            guard name == login.username.text.lowercased() else { return [] }
            login.savedProfile = user
            login.profileFor = name
            return []
        case .loggedIn(let user):
            me = user
            screen = .sessions
            login.phase = .editing
            login.password.set("")
            login.warning = nil
            login.note = nil
            register = RegisterState()
            return [.startLive]
        case .loginFailed(let reason):
            if screen == .register { register.phase = .failed(reason) } else { login.phase = .failed(reason) }
            return []
        case .registerFailed(let reason):
            register.phase = .failed(reason)
            return []
        case .loggedOut:
            if me != nil { resetToLogin(note: "Logged out.") }
            return [.loadLastUser]
        case .sessions(let list):
            sessions.replace(list)
            return []
        case .conversation(let conversation):
            sessions.upsert(conversation)
            if let open = dialogue, open.key.id == nil, open.key.matches(DialogueKey(address: conversation.address)) {
                dialogue?.key.id = conversation.id
            }
            return []
        case .contacts(let lists):
            contacts.replace(lists)
            return []
        case .history(let key, let page, let before):
            return applyHistory(key, page, before: before)
        case .historyFailed(let key, let reason):
            guard dialogue?.key.matches(key) == true else { return [] }
            dialogue?.historyFailed(reason)
            return []
        case .sent(let key, _, let message):
            // A post that went through lifts whatever held posts back.
            if dialogue?.key.matches(key) == true { dialogue?.posting = nil }
            return receive(message, key: key)
        case .sendFailed(let key, let clientID, let reason, let block):
            guard dialogue?.key.matches(key) == true else { return [] }
            dialogue?.sendFailed(clientID, reason: reason)
            if let block { dialogue?.posting = block }
            return []
        case .messageChanged(let key, let message):
            if dialogue?.key.matches(key) == true { dialogue?.update(message) }
            sessions.replaceLast(message)
            return []
        case .editFailed(let key, let id, let text, let reason, let block):
            guard var state = dialogue, state.key.matches(key), let message = state.message(id) else {
                status = ("not edited: \(reason)", true)
                return []
            }
            state.beginEditing(message)
            state.compose.set(text)
            state.notice = "Not edited: \(reason)"
            if let block { state.posting = block }
            dialogue = state
            return []
        case .markedRead:
            return []
        case .contactAdded(let user):
            contacts.upsert(user)
            contacts.prompt = nil
            status = ("\(user.username) is now a contact", false)
            return []
        case .contactRemoved(let name):
            contacts.remove(kind: .direct, name: name)
            contacts.info = nil
            status = ("\(name) is no longer a contact", false)
            return []
        case .blockChanged(let name, let blocked):
            if blocked { contacts.blocked.insert(name) } else { contacts.blocked.remove(name) }
            status = (blocked ? "\(name) is blocked: their messages to you are refused" : "\(name) is no longer blocked", false)
            return []
        case .joinRequested(let request):
            contacts.add(request, mine: true)
            contacts.prompt = nil
            status = ("#\(request.group) takes requests: yours waits for an admin", false)
            return []
        case .invited(let invite):
            contacts.info?.form = nil
            status = ("invited \(invite.user) to #\(invite.group)", false)
            return []
        case .settled(let group, let user, let approved):
            if user == myName {
                contacts.settle(group: group)
            } else {
                contacts.settleRequest(group: group, user: user)
                status = (approved ? "\(user) is in #\(group) now" : "\(user)'s request to join #\(group) was denied", false)
            }
            return []
        case .moderated(let result):
            contacts.info?.form = nil
            status = (MemberActions.done(result), false)
            return contacts.info?.item.address == .group(result.group) ? [.loadInfo(.group, result.group)] : []
        case .joined(let info):
            contacts.upsert(info)
            contacts.settle(group: info.name)
            contacts.prompt = nil
            contacts.menu = nil
            let key = DialogueKey(address: info.address, id: info.id)
            return openDialogue(key, kind: info.kind, title: info.title, readMarker: 0, unread: 0) + [.loadConversation(info.address)]
        case .left(let kind, let name):
            contacts.remove(kind: kind, name: name)
            contacts.info = nil
            let address = ConversationAddress(kind: kind, name: name)
            sessions.remove(address)
            if dialogue?.key.address == address { closeDialogue() }
            status = ("left \(address)", false)
            return []
        case .info(let info, let members):
            contacts.upsert(info)
            if contacts.info?.item.address == info.address {
                contacts.info?.members = members
                if let selected = contacts.info?.selectedMember {
                    contacts.info?.selectedMember = members.isEmpty ? nil : min(selected, members.count - 1)
                }
            }
            if info.kind == .group { applyMembers(members, group: info.name) }
            return []
        case .members(let group, let members):
            applyMembers(members, group: group)
            return []
        case .user(let user):
            if case .contact(let shown)? = contacts.info?.item, shown.username == user.username {
                contacts.info?.item = .contact(user)
            }
            return []
        case .infoUpdated(let info):
            contacts.upsert(info)
            contacts.info?.form = nil
            sessions.rename(info.address, to: info.title)
            status = ("saved", false)
            return []
        case .profileUpdated(let user):
            me = user
            profile.editing = nil
            profile.saving = false
            profile.note = "Saved."
            profile.noteIsError = false
            return []
        case .failed(let message):
            profile.saving = false
            if profile.editing != nil || screen == .profile {
                profile.note = message
                profile.noteIsError = true
            }
            status = (message, true)
            return []
        }
    }
}

extension ChatResult {
    /// True for answers that matter while nobody is logged in.
    var isAboutLoggingIn: Bool {
        switch self {
        case .lastUser, .localProfile, .loggedIn, .loginFailed, .registerFailed, .loggedOut: true
        default: false
        }
    }
}
