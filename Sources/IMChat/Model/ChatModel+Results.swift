import IMProtocol

/// What the answers to commands do to the screens.
extension ChatModel {
    mutating func apply(_ result: ChatResult) -> [ChatEffect] {
        // An answer to a call of a login that has ended since belongs to no screen.
        if me == nil, !result.isAboutLoggingIn { return [] }
        switch result {
        case .lastUser(let name, let user, let resumable):
            if let name, login.username.isEmpty {
                login.username.set(name)
                login.focus = .password
            }
            login.savedProfile = user
            login.profileFor = name
            // A login kept on this machine: no password asked.
            if resumable, let name, login.phase == .editing {
                login.phase = .waiting
                return [.resumeLogin(name)]
            }
            return []
        case .localProfile(let name, let user):
            guard name == login.username.text.lowercased() else { return [] }
            login.savedProfile = user
            login.profileFor = name
            return []
        case .loggedIn(let user):
            me = user
            learn([user])
            screen = .sessions
            connection = .connecting
            login.phase = .editing
            login.password.set("")
            login.warning = nil
            login.note = nil
            register = RegisterState()
            return [.startLive]
        case .loginFailed(let reason):
            if screen == .register { register.phase = .failed(reason) } else { login.phase = .failed(reason) }
            login.password.set("")
            return []
        case .registerFailed(let reason):
            register.phase = .failed(reason)
            return []
        case .loggedOut:
            if me != nil { resetToLogin(note: "Logged out.") }
            return [.loadLastUser]
        case .sessions(let list):
            let recounting = sessions.replace(list)
            for row in list { if case .user(let name) = row.address { nicknames[name.lowercased()] = row.displayName } }
            return recounting.flatMap { loadRow($0) }
        case .conversation(let conversation, let requested):
            let counted = sessions.upsert(conversation)
            if let open = dialogue, open.key.id == nil, open.key.matches(DialogueKey(address: conversation.address)) {
                dialogue?.key.id = conversation.id
            }
            let again = sessions.fetchEnded(requested)
            return counted && !again ? [] : loadRow(requested)
        case .conversationUnavailable(let requested, let reason):
            _ = sessions.fetchEnded(requested)
            if let reason { status = ("cannot load \(requested): \(reason)", true) }
            return []
        case .contacts(let lists):
            contacts.replace(lists)
            learn(lists.users + lists.blocked)
            if let index = sessions.waitingSelected, index >= waiting.count {
                sessions.waitingSelected = waiting.isEmpty ? nil : waiting.count - 1
            }
            return []
        case .history(let key, let page, let before):
            return applyHistory(key, page, before: before)
        case .historyFailed(let key, let reason):
            guard dialogue?.key.matches(key) == true else { return [] }
            dialogue?.historyFailed(reason)
            return []
        case .sent(let key, let clientID, let message):
            return sent(key, clientID: clientID, message)
        case .sendFailed(let key, let clientID, let reason, let block, let unreachable):
            return sendFailed(key, clientID: clientID, reason: reason, block: block, unreachable: unreachable)
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
            status = ("not edited: \(reason)", true)  // whole, however long
            if let block { state.posting = block }
            dialogue = state
            return []
        case .markedRead:
            return []
        case .contactAdded(let user):
            contacts.upsert(user)
            learn([user])
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
            contacts.directory = nil
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
            contacts.groupForm = nil
            contacts.directory = nil
            let key = DialogueKey(address: info.address, id: info.id)
            return openDialogue(key, kind: info.kind, title: info.title, readMarker: 0, unread: 0) + loadRow(info.address)
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
            learn(members.map(\.user))
            if contacts.info?.item.address == info.address {
                contacts.info?.members = members
                if let selected = contacts.info?.selectedMember {
                    contacts.info?.selectedMember = members.isEmpty ? nil : min(selected, members.count - 1)
                }
            }
            applyMembers(members, kind: info.kind, name: info.name)
            return []
        case .members(let kind, let name, let members):
            learn(members.map(\.user))
            applyMembers(members, kind: kind, name: name)
            return []
        case .whois(let user):
            learn([user])
            var parts = ["\(user.username)", user.nickname.isEmpty ? nil : "(\(user.nickname))"].compactMap { $0 }
            if !user.signature.isEmpty { parts.append("· \(user.signature)") }
            if user.isBot { parts.append("· a bot") }
            if contacts.blocked.contains(user.username) { parts.append("· blocked") }
            parts.append("· here since \(time.day(user.createdAt))")
            status = (parts.joined(separator: " "), false)
            return []
        case .directory(let page, let search, let after):
            contacts.directory?.apply(page, search: search, after: after)
            return []
        case .directoryFailed(let reason, let search):
            contacts.directory?.failed(reason, search: search)
            return []
        case .picture(let key, let ready):
            if ready { pictures.insert(key) }
            return []
        case .passwordChanged(let user):
            me = user
            profile.password = nil
            profile.saving = false
            profile.note = "Password changed: every other login of \(user.username) has ended; this one goes on."
            profile.noteIsError = false
            return []
        case .user(let user):
            learn([user])
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
            learn([user])
            profile.editing = nil
            profile.saving = false
            profile.note = "Saved."
            profile.noteIsError = false
            return []
        case .failed(let message):
            profile.saving = false
            if profile.editing != nil || profile.password != nil || screen == .profile {
                profile.note = message
                profile.noteIsError = true
            }
            status = (message, true)
            return []
        }
    }
}

extension ChatModel {
    /// Fetches the row of `address`, unless a fetch of it is out already: then it is
    /// fetched once more when that one ends (`SessionsState.startFetch`).
    mutating func loadRow(_ address: ConversationAddress) -> [ChatEffect] {
        sessions.startFetch(address) ? [.loadConversation(address)] : []
    }
}

extension ChatResult {
    /// True for answers that matter while nobody is logged in.
    var isAboutLoggingIn: Bool {
        switch self {
        case .lastUser, .localProfile, .loggedIn, .loginFailed, .registerFailed, .loggedOut, .picture: true
        default: false
        }
    }
}
