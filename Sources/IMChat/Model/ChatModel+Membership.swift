import IMProtocol

/// What member events do: invitations and join requests in Contacts, this user's own
/// standing (removed, muted, a new role) in the open dialogue, and fresh members lists
/// on an open info page.
extension ChatModel {
    /// A member event of the conversation `key` about `user`.
    mutating func membershipChanged(_ event: Event, key: DialogueKey, user: String, me: String) -> [ChatEffect] {
        let aboutMe = user == me
        let open = dialogue?.key.matches(key) == true
        var commands: [ChatEffect] = []
        guard case .group(let group) = key.address else {
            // Rooms: leaving one from another client takes it off the lists here too.
            if aboutMe, event.type == .memberLeft, case .room(let room) = key.address {
                contacts.remove(kind: .room, name: room)
            }
            return []
        }
        switch event.type {
        case .memberInvited:
            if aboutMe {
                contacts.add(GroupInvite(group: group, user: me, invitedBy: event.by ?? "", createdAt: event.at))
                status = ("\(event.by ?? "an admin") invited you to #\(group): accept it in Contacts (2)", false)
            }
        case .inviteRevoked:
            if aboutMe {
                contacts.settle(group: group)
                if event.by != me { status = ("the invitation to #\(group) was withdrawn", false) }
            }
        case .joinRequested:
            let request = GroupJoinRequest(group: group, user: user, createdAt: event.at)
            contacts.add(request, mine: aboutMe)
            if !aboutMe, contacts.decides.contains(group) {
                status = ("\(user) asks to join #\(group): approve or deny in Contacts (2)", false)
            }
        case .joinRequestRevoked:
            if aboutMe {
                contacts.settle(group: group)
                if event.by != me { status = ("your request to join #\(group) was declined", true) }
            } else {
                contacts.settleRequest(group: group, user: user)
            }
        case .memberJoined:
            if aboutMe {
                contacts.settle(group: group)
                if open, case .removed? = dialogue?.posting { dialogue?.posting = nil }  // back in
                if event.via == .approval { status = ("your request was approved: you are in #\(group) now", false) }
                commands.append(.loadContacts)
            } else {
                contacts.settleRequest(group: group, user: user)
            }
        case .memberKicked, .memberBanned, .memberLeft:
            guard aboutMe else { break }
            contacts.remove(kind: .group, name: group)
            if contacts.info?.item.address == key.address { contacts.info = nil }
            if event.type == .memberLeft {
                if open { dialogue?.notice = "You left this conversation." }
                break
            }
            dialogue?.confirmingDelete = nil
            if open {
                dialogue?.posting = .removed(by: event.by, reason: event.reason)
            } else {
                let by = event.by ?? "a moderator"
                status = ("\(by) removed you from #\(group)" + (event.reason.map { ": \($0)" } ?? ""), true)
            }
        case .memberMuted:
            if aboutMe, open { dialogue?.posting = .muted(until: event.until) }
        case .memberUnmuted:
            if aboutMe, open {
                dialogue?.posting = nil
                dialogue?.notice = "You may post here again."
            }
        case .roleChanged:
            if aboutMe {
                if open { dialogue?.myRole = event.role }
                commands.append(.loadContacts)  // which groups' requests this user decides
            }
        default:
            break
        }
        // An info page of the group shows members' roles and mutes: load it again.
        if contacts.info?.item.address == key.address, contacts.info?.members != nil {
            commands.append(.loadInfo(.group, group))
        }
        return commands
    }

    /// A members list (or the people present in a room) for the open dialogue of that
    /// conversation: `/names`, and this user's standing in a group (their role, a mute,
    /// the newcomers' wait).
    mutating func applyMembers(_ members: [Member], kind: ConversationKind, name: String) {
        guard var state = dialogue, state.key.address == ConversationAddress(kind: kind, name: name) else { return }
        state.members = members
        guard kind == .group else {
            dialogue = state
            return
        }
        let mine = members.first { $0.user.username == myName }
        state.myRole = mine?.role
        if let mine, mine.muted == true {
            state.posting = .muted(until: mine.mutedUntil)
        } else if mine?.restricted == true {
            state.posting = .restricted
        } else if mine != nil {
            switch state.posting {
            case .muted?, .restricted?: state.posting = nil  // lifted meanwhile
            default: break
            }
        }
        dialogue = state
    }
}
