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
            if !offline { interruption = .connectionLost(error.message, retryIn: seconds) }
            if case .connectionLost? = interruption { interruption = .connectionLost(error.message, retryIn: seconds) }
            return []
        case .reconnected:
            if case .connectionLost? = interruption { interruption = nil }
            offline = false
            status = ("connected again", false)
            return []
        }
    }

    private mutating func apply(_ event: Event) -> [ChatEffect] {
        guard let me else { return [] }
        let key = event.conversation.map { DialogueKey(address: $0.address, id: $0.id) }
        var commands: [ChatEffect] = []
        switch event.type {
        case .message, .memberJoined, .memberLeft, .memberKicked, .memberMuted, .conversationUpdated:
            if let info = event.info, let key {
                contacts.upsert(info)
                sessions.rename(key.address, to: info.title)
                if dialogue?.key.matches(key) == true { dialogue?.title = info.title }
            }
            if event.type != .message, event.user?.username == me.username, let key {
                commands += membershipChanged(event, key: key)
            }
            if let message = event.message, let key { commands += receive(message, key: key) }
        case .messageDeleted:
            if let message = event.message {
                if dialogue?.key.id == message.conversationID { dialogue?.update(message) }
                sessions.replaceLast(message)
            }
        case .read:
            if let key, let id = key.id, let seq = event.seq {
                if dialogue?.key.matches(key) == true, let state = dialogue { dialogue?.readSent = max(state.readSent, seq) }
                if sessions.markRead(id, seq: seq) { commands.append(.loadConversation(key.address)) }
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
        case .other:
            break
        }
        return commands
    }

    /// This user left, was removed from, or was muted in a conversation.
    private mutating func membershipChanged(_ event: Event, key: DialogueKey) -> [ChatEffect] {
        let open = dialogue?.key.matches(key) == true
        switch event.type {
        case .memberKicked, .memberLeft:
            if case .group(let name) = key.address { contacts.remove(kind: .group, name: name) }
            if case .room(let name) = key.address { contacts.remove(kind: .room, name: name) }
            if open {
                dialogue?.notice = event.type == .memberKicked
                    ? "You were removed from this conversation\(event.by.map { " by \($0)" } ?? "")."
                    : "You left this conversation."
            }
        case .memberMuted:
            if open {
                dialogue?.notice = event.until.map { "You are muted here until \(time.day($0)) \(time.clock($0))." }
                    ?? "You are no longer muted here."
            }
        default:
            break
        }
        return []
    }
}
