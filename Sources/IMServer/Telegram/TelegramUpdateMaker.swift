import IMProtocol
import IMStore

/// Turns events of a bot's feed into the updates Telegram would send it:
///
/// | event | updates |
/// |---|---|
/// | `message` from someone else | `message` (entities found by the server) |
/// | `message_edited` of someone else's | `edited_message` |
/// | `member_joined` | a `message` with `new_chat_members`, and `chat_member` (`my_chat_member` for the bot) |
/// | `member_left`, `member_kicked` | a `message` with `left_chat_member`, and `chat_member` to `left` |
/// | `member_banned` | a `message` with `left_chat_member` when they were in, and `chat_member` to `kicked` |
/// | `member_unbanned` | `chat_member` from `kicked` to `left` |
/// | `member_muted`, `member_unmuted` | `chat_member` to `restricted` and back to `member` |
/// | `role_changed` | `chat_member` between `member`, `administrator` and `creator` |
///
/// Other events (the bot's own messages, deletions, reads, profile changes) make none.
/// Telegram's bots are added to groups, not invited: an invitation is accepted when it is
/// made (`TelegramInvitations`), and one made before the bot had its token when the bot
/// reads it here (`my_chat_member` follows with the joining).
struct TelegramUpdateMaker {
    let objects: TelegramObjects
    var bot: UserID { objects.bot }

    func updates(for event: Event) async throws -> [TGUpdate] {
        guard let reference = event.conversation else { return [] }
        if event.type == .memberInvited, event.user?.id == bot {
            try await acceptInvitation(reference, event)
            return []
        }
        guard let chat = try await objects.chat(reference) else { return [] }
        let date = TelegramTime.seconds(event.at)
        func update(_ slot: Int64) -> TGUpdate {
            TGUpdate(updateId: TelegramUpdateID.make(position: event.position, slot: slot))
        }
        switch event.type {
        case .message:
            guard let message = event.message, message.type == .chat, message.senderID != bot, message.deletedAt == nil
            else { return [] }
            var made = update(0)
            made.message = try await objects.message(message, in: chat)
            return [made]
        case .messageEdited:
            guard let message = event.message, message.type == .chat, message.senderID != bot else { return [] }
            var made = update(0)
            made.editedMessage = try await objects.message(message, in: chat)
            return [made]
        case .memberJoined, .memberLeft, .memberKicked, .memberBanned, .memberUnbanned, .memberMuted,
            .memberUnmuted, .roleChanged:
            guard let user = event.user else { return [] }
            let member = objects.remember(user)
            let actor = try await event.by.asyncMap { try await objects.user(named: $0) } ?? nil
            var made: [TGUpdate] = []
            if let notice = event.message, let service = serviceMessage(event, notice, member, actor ?? member, chat) {
                var first = update(0)
                first.message = service
                made.append(first)
            }
            if let (old, new) = change(event) {
                var second = update(1)
                let changed = TGChatMemberUpdated(
                    chat: chat, from: actor ?? member, date: date,
                    oldChatMember: TGChatMember(user: member, status: old),
                    newChatMember: TGChatMember(user: member, status: new))
                if user.id == bot { second.myChatMember = changed } else { second.chatMember = changed }
                made.append(second)
            }
            return made
        default:
            return []
        }
    }

    /// The service message of a joining or leaving, numbered as the notice it stands for.
    private func serviceMessage(_ event: Event, _ notice: Message, _ member: TGUser, _ actor: TGUser, _ chat: TGChat)
        -> TGMessage?
    {
        let date = TelegramTime.seconds(notice.createdAt)
        switch event.type {
        case .memberJoined:
            return TGMessage(messageId: notice.seq, from: actor, date: date, chat: chat, newChatMembers: [member])
        case .memberLeft, .memberKicked, .memberBanned:
            return TGMessage(messageId: notice.seq, from: actor, date: date, chat: chat, leftChatMember: member)
        default:
            return nil
        }
    }

    /// The standing before and after a member event.
    private func change(_ event: Event) -> (TGChatMember.Status, TGChatMember.Status)? {
        let until = event.until.map(TelegramTime.seconds) ?? 0
        switch event.type {
        case .memberJoined:
            // Only a group's creator joins it without a `via`: as its owner.
            let owner = event.via == nil && event.conversation?.kind == .group
            return (.left, owner ? .creator : .member)
        case .memberLeft, .memberKicked: return (.member, .left)
        case .memberBanned: return (event.message == nil ? .left : .member, .kicked(until: until))
        case .memberUnbanned: return (.kicked(until: 0), .left)
        case .memberMuted: return (.member, .restricted(until: until))
        case .memberUnmuted: return (.restricted(until: 0), .member)
        case .roleChanged:
            switch event.role {
            case .owner: return (.administrator, .creator)
            case .admin: return (.member, .administrator)
            case .member, nil: return (.administrator, .member)
            }
        default: return nil
        }
    }

    private func acceptInvitation(_ reference: ConversationRef, _ event: Event) async throws {
        guard let name = event.user?.username else { return }
        try await TelegramInvitations.accept(name, bot, to: reference.id, kind: reference.kind, store: objects.core.store)
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
