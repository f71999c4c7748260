import IMClient
import IMProtocol

/// What live events do to the screens.
extension ChatModel {
    mutating func apply(_ item: LiveEvent) -> [ChatEffect] {
        switch item {
        case .event(let event):
            return apply(event)
        case .resyncNeeded:
            // Events may have been missed: everything on screen is loaded anew.
            var commands: [ChatEffect] = [.loadSessions, .loadContacts]
            if let key = dialogue?.key { commands.append(.loadHistory(key, before: nil, limit: DialogueState.pageSize)) }
            return commands
        case .unreadable:
            return []
        case .disconnected(let error, let retryIn):
            guard me != nil else { return [] }
            let seconds = Int(retryIn.components.seconds) + (retryIn.components.attoseconds > 0 ? 1 : 0)
            connection = .lost(error.message, retryIn: seconds)
            return []
        case .reconnected:
            return connected()
        }
    }

    private mutating func apply(_ event: Event) -> [ChatEffect] {
        guard let me else { return [] }
        let key = event.conversation.map { DialogueKey(address: $0.address, id: $0.id) }
        var commands: [ChatEffect] = []
        if let user = event.user { learn([user]) }
        switch event.type {
        case .message, .memberJoined, .memberLeft, .memberKicked, .memberMuted, .memberUnmuted, .memberBanned,
            .memberUnbanned, .roleChanged, .memberInvited, .inviteRevoked, .joinRequested, .joinRequestRevoked,
            .conversationUpdated:
            if let info = event.info, let key {
                // A group that starts taking requests: whether this user decides them
                // is for the server to say (loading the lists asks it).
                if info.join == .approval, let known = contacts.groups.first(where: { $0.id == info.id }),
                    known.join != .approval
                {
                    commands.append(.loadContacts)
                }
                contacts.upsert(info)
                sessions.rename(key.address, to: info.title)
                if dialogue?.key.matches(key) == true { dialogue?.title = info.title }
            }
            if event.type != .message, let user = event.user, let key {
                commands += membershipChanged(event, key: key, user: user.username, me: me.username)
            }
            if let message = event.message, let key { commands += receive(message, key: key) }
        case .messageEdited, .messageDeleted:
            if let message = event.message {
                if dialogue?.key.id == message.conversationID { dialogue?.update(message) }
                sessions.replaceLast(message)
            }
        case .read:
            // Another client of the account read here: the open dialogue's count, the
            // Sessions row and the banner follow it.
            if let key, let id = key.id, let seq = event.seq {
                if var state = dialogue, state.key.matches(key) {
                    state.readSent = max(state.readSent, seq)
                    dialogue = state
                    sessions.markRead(id, seq: max(seq, sessions.row(id)?.lastReadSeq ?? 0), unread: state.unseen(after: state.readSent, me: myName))
                } else if sessions.markRead(id, seq: seq) {
                    commands += loadRow(key.address)
                }
            }
        case .profileUpdated:
            if let user = event.user {
                if user.id == me.id { self.me = user }
                if contacts.users.contains(where: { $0.id == user.id }) { contacts.upsert(user) }
                sessions.rename(.user(user.username), to: user.nickname)
            }
        case .contactAdded:
            if let user = event.user {
                if event.by == me.username {
                    contacts.upsert(user)
                } else {
                    status = ("\(event.by ?? user.username) added you as a contact", false)
                }
            }
        case .kickedOut:
            interruption = .kickedOut(event.reason ?? "another login of this account replaced this one")
        case .notice:
            if let notice = event.notice { receive(notice, key: key) }
        case .other:
            break
        }
        return commands
    }
}
